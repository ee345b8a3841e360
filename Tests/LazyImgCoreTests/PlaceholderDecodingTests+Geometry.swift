#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_3 // ThreadSanitizer group 3 (see the Makefile's tsan)
@testable import LazyImgCore
import XCTest

/// The size a row's placeholder is drawn at for a loader's box.
extension PlaceholderDecodingTests {
    private func options(_ width: Int, _ height: Int, _ fit: FitMode = .fit) -> DecodeOptions {
        DecodeOptions(target: TargetSize(width: width, height: height), fit: fit, format: .rgba8)
    }

    func testABlurHashFillsTheBoxCappedAt64() throws {
        let hash = try BlurHash(Array("LEHV6nWB2yk8pyo0adR*.7kCMdnj".utf8))
        for (box, size) in [((48, 32), (48, 32)), ((0, 0), (32, 32)), ((40, 0), (40, 40)), ((0, 20), (20, 20)),
                            ((256, 128), (64, 32)), ((1000, 3), (64, 1)), ((0, 500), (64, 64)),
                            ((Int(UInt32.max), Int(UInt32.max)), (64, 64))] {
            for fit in [FitMode.fit, .fill] {
                let image = try XCTUnwrap(Placeholder.blurHash(hash).render(for: options(box.0, box.1, fit)))
                XCTAssertTrue((image.width, image.height) == size, "\(box) \(fit): \(image.width)x\(image.height)")
                XCTAssertTrue(image.isPlaceholder)
            }
        }
    }

    func testAThumbHashFitsItsAspectAsAnImageDoes() throws {
        // 7:5 landscape by its header.
        let hash = try ThumbHash(base64: Array("2hgGDYB4dWiPd5dleGiIl1lvo/JE".utf8))
        XCTAssertTrue(hash.aspectRatio == (7, 5))
        for (box, fit, size) in [((0, 0), FitMode.fit, (32, 23)), ((48, 48), .fit, (48, 34)), ((48, 48), .fill, (48, 48)),
                                 ((20, 40), .fill, (20, 40)), ((100, 0), .fill, (64, 45)), ((0, 30), .fit, (42, 30)),
                                 ((640, 64), .fit, (64, 46)), ((640, 64), .fill, (64, 6)),
                                 ((Int(UInt32.max), 8), .fit, (11, 8))] {
            let image = try XCTUnwrap(Placeholder.thumbHash(hash).render(for: options(box.0, box.1, fit)))
            XCTAssertTrue((image.width, image.height) == size, "\(box) \(fit): \(image.width)x\(image.height)")
        }
    }

    /// No box gives every aspect a header can hold the reference's own size.
    func testWithoutABoxAThumbHashHasTheReferenceSize() throws {
        for alpha in [false, true] {
            for landscape in [false, true] {
                for lMin in 1...7 {
                    var bytes = [UInt8](repeating: 0, count: 32)
                    bytes[2] = alpha ? 0x80 : 0
                    bytes[3] = UInt8(lMin)
                    bytes[4] = landscape ? 0x80 : 0
                    let hash = try ThumbHash(bytes: bytes)
                    let geometry = PlaceholderGeometry(thumbHashAspect: hash.aspectRatio, options: options(0, 0))
                    XCTAssertTrue((geometry.gridWidth, geometry.gridHeight) == hash.referenceSize, "\(bytes[2...4])")
                }
            }
        }
    }

    /// Filling a box of another aspect keeps the centre of the grid that covers it:
    /// the same pixels as that part of the whole grid's render.
    func testAFilledThumbHashIsTheCentreOfTheCoveringGrid() throws {
        let hash = try ThumbHash(base64: Array("2hgGDYB4dWiPd5dleGiIl1lvo/JE".utf8))
        let cut = try XCTUnwrap(Placeholder.thumbHash(hash).render(for: options(30, 40, .fill)))
        let geometry = PlaceholderGeometry(thumbHashAspect: (7, 5), options: options(30, 40, .fill))
        XCTAssertTrue((geometry.gridWidth, geometry.gridHeight) == (56, 40))
        let whole = try XCTUnwrap(hash.render(width: 56, height: 40, format: .rgba8))
        for y in 0..<40 {
            XCTAssertEqual(Array(cut.row(y)), Array(whole.row(y)[13 * 4 ..< 43 * 4]), "row \(y)")
        }
    }
}
#endif
