#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_3 // ThreadSanitizer group 3 (see the Makefile's tsan)
@testable import LazyImgCore
import TestSupport
import XCTest

final class ResamplerTests: XCTestCase {
    private func fit(_ width: Int, _ height: Int, _ boxWidth: Int, _ boxHeight: Int) -> [Int] {
        let size = Resampler.fittedSize(width: width, height: height, in: TargetSize(width: boxWidth, height: boxHeight))
        return [size.width, size.height]
    }

    func testFittedSize() {
        XCTAssertEqual(fit(640, 480, 0, 0), [640, 480])        // original
        XCTAssertEqual(fit(640, 480, 320, 320), [320, 240])    // width is the tighter side
        XCTAssertEqual(fit(480, 640, 320, 320), [240, 320])    // height is
        XCTAssertEqual(fit(640, 480, 0, 120), [160, 120])      // unlimited width
        XCTAssertEqual(fit(640, 480, 64, 0), [64, 48])         // unlimited height
        XCTAssertEqual(fit(640, 480, 2000, 2000), [640, 480])  // never upscaled
        XCTAssertEqual(fit(640, 480, 2000, 240), [320, 240])
        XCTAssertEqual(fit(10_000, 1, 100, 100), [100, 1])     // at least one pixel
        XCTAssertEqual(fit(1, 10_000, 100, 100), [1, 100])
        XCTAssertEqual(fit(3, 2, 2, 2), [2, 1])                // 1.33 rounds to 1
        XCTAssertEqual(fit(101, 100, 50, 50), [50, 50])        // 49.5 rounds half up, then capped
        XCTAssertEqual(fit(640, 480, -5, 0), [640, 480])       // negative sides mean no limit
        XCTAssertEqual(fit(Int(Int32.max), Int(Int32.max), 7, 0), [7, 7])  // no overflow
    }

    private func image(_ width: Int, _ height: Int, pattern: TestPattern) -> (pixels: [UInt8], width: Int, height: Int) {
        (makeRGBA(width: width, height: height, pattern: pattern), width, height)
    }

    private func shrink(_ source: (pixels: [UInt8], width: Int, height: Int), to width: Int, _ height: Int,
                        opaque: Bool = false) throws -> DecodedImage {
        let output = try XCTUnwrap(DecodedImage(width: width, height: height, sourceWidth: source.width, sourceHeight: source.height))
        source.pixels.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            Resampler.downsample(source: base, width: source.width, height: source.height,
                                 stride: source.width * 4, opaque: opaque, into: output)
        }
        return output
    }

    func testRowsPassedWithTheirNonzeroColumnsShrinkAsWholeRowsDo() throws {
        // A 9-column frame at column 20 of a 50-column canvas, rows 10..<30 of 40.
        let (width, height) = (50, 40)
        var canvas = [UInt8](repeating: 0, count: width * height * 4)
        for y in 10..<30 {
            for x in 20..<29 { canvas.replaceSubrange((y * width + x) * 4..<(y * width + x + 1) * 4, with: [200, 50, 9, 180]) }
        }
        let whole = try XCTUnwrap(DecodedImage(width: 7, height: 6, sourceWidth: width, sourceHeight: height))
        let sparse = try XCTUnwrap(DecodedImage(width: 7, height: 6, sourceWidth: width, sourceHeight: height))
        canvas.withUnsafeBytes { pixels in
            let base = pixels.baseAddress!
            let wholeRows = RowResampler(sourceWidth: width, sourceHeight: height, opaque: false, into: whole.pixels,
                                         width: 7, height: 6, stride: whole.stride)
            let sparseRows = RowResampler(sourceWidth: width, sourceHeight: height, opaque: false, into: sparse.pixels,
                                          width: 7, height: 6, stride: sparse.stride)
            for y in 0..<height {
                wholeRows?.add(base + y * width * 4)
                sparseRows?.add(base + y * width * 4, nonzeroColumns: (10..<30).contains(y) ? 20..<29 : 0..<0)
            }
        }
        for y in 0..<6 {
            XCTAssertEqual(Array(whole.row(y)), Array(sparse.row(y)), "row \(y)")
        }
        XCTAssertNotEqual(Array(whole.row(3)), [UInt8](repeating: 0, count: 28), "the frame shows")
    }

    func testFineCheckerboardAveragesToUniformGrey() throws {
        // A 1-pixel black/white checkerboard shrunk 4x: each output pixel covers 8 black
        // and 8 white pixels, so every one is the same mid grey (sampling would alias).
        let output = try shrink(image(64, 48, pattern: .fineChecker), to: 16, 12)
        XCTAssertEqual(DecodingTestHelpers.maxDeviation(of: output, from: [128, 128, 128, 255]), 0)
    }

    func testNonIntegerRatioKeepsTheMean() throws {
        // A two-colour 1-pixel checkerboard shrunk by 7/3 (fractional coverage):
        // per-pixel values vary a little, the mean colour must not.
        let source = image(70, 35, pattern: .checkerboard(cell: 1, first: [240, 20, 100, 255], second: [20, 240, 60, 255]))
        let output = try shrink(source, to: 30, 15)
        let mean = DecodingTestHelpers.meanColor(of: output)
        for (channel, expected) in [130.0, 130.0, 80.0, 255.0].enumerated() {
            XCTAssertEqual(mean[channel], expected, accuracy: 2.0, "channel \(channel)")
        }
        // Every output pixel mixes both colours, so none is near either pure colour.
        XCTAssertLessThanOrEqual(DecodingTestHelpers.maxDeviation(of: output, from: [130, 130, 80, 255]), 20)
    }

    func testTransparentColourDoesNotBleed() throws {
        // Opaque red beside fully transparent green: the green must not tint the result.
        let source = image(8, 8, pattern: .checkerboard(cell: 1, first: [255, 0, 0, 255], second: [0, 255, 0, 0]))
        let output = try shrink(source, to: 2, 2)
        XCTAssertEqual(DecodingTestHelpers.maxDeviation(of: output, from: [255, 0, 0, 128]), 0)

        let clear = try shrink(image(8, 8, pattern: .solid(red: 9, green: 9, blue: 9, alpha: 0)), to: 3, 3)
        XCTAssertEqual(DecodingTestHelpers.maxDeviation(of: clear, from: [0, 0, 0, 0]), 0)
    }

    func testEqualSizeIsACopy() throws {
        let source = image(9, 5, pattern: .gradient)
        let output = try shrink(source, to: 9, 5)
        var copied: [UInt8] = []
        for y in 0..<5 { copied += Array(output.row(y)) }
        XCTAssertEqual(copied, source.pixels)
    }

    func testGradientStaysMonotonic() throws {
        let output = try shrink(image(1000, 10, pattern: .gradient), to: 37, 3)
        let row = output.row(1)
        for x in 1..<37 {
            XCTAssertGreaterThan(row[4 * x], row[4 * (x - 1)], "column \(x)")
        }
    }

    func testOpaqueShortcutMatchesThePremultipliedPath() throws {
        // The opaque path skips premultiplying and takes four pixels per step (odd
        // widths leave a tail); on opaque input it must give the same pixels.
        let cases: [(source: (pixels: [UInt8], width: Int, height: Int), width: Int, height: Int)] = [
            (image(70, 35, pattern: .checkerboard(cell: 1, first: [240, 20, 100, 255], second: [20, 240, 60, 255])), 30, 15),
            (image(1001, 10, pattern: .gradient), 37, 3),
            (image(64, 48, pattern: .fineChecker), 16, 12),
        ]
        for (source, width, height) in cases {
            let general = try shrink(source, to: width, height)
            let opaque = try shrink(source, to: width, height, opaque: true)
            for y in 0..<height {
                for (a, b) in zip(general.row(y), opaque.row(y)) {
                    XCTAssertLessThanOrEqual(abs(Int(a) - Int(b)), 1, "\(source.width)x\(source.height) row \(y)")
                }
            }
        }
        let grey = try shrink(image(64, 48, pattern: .fineChecker), to: 16, 12, opaque: true)
        XCTAssertEqual(DecodingTestHelpers.maxDeviation(of: grey, from: [128, 128, 128, 255]), 0)
    }
}
#endif
