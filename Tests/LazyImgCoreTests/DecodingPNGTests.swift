#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_2 // ThreadSanitizer group 2 (see the Makefile's tsan)
import LazyImgCore
import TestSupport
import XCTest

final class DecodingPNGTests: XCTestCase {
    private let limits = DecodeLimits()

    func testEveryColourTypeAndDepthRoundTrips() throws {
        let colour: [UInt8] = [180, 90, 30, 128]
        let pattern = TestPattern.solid(red: 180, green: 90, blue: 30, alpha: 128)
        let expected: [(PNGColorType, [UInt8])] = [
            (.gray, [180, 180, 180, 255]),
            (.grayAlpha, [180, 180, 180, 128]),
            (.rgb, [180, 90, 30, 255]),
            (.rgba, colour),
        ]
        for (colorType, pixel) in expected {
            for bitDepth in [8, 16] {
                for interlaced in [false, true] {
                    let png = makePNG(width: 13, height: 7, colorType: colorType, bitDepth: bitDepth,
                                      interlaced: interlaced, pattern: pattern)
                    let name = "\(colorType) \(bitDepth)-bit interlaced=\(interlaced)"
                    XCTAssertFalse(png.isEmpty, name)
                    let image = try ImageDecoder().decode(png, target: .original, limits: limits)
                    XCTAssertEqual([image.width, image.height], [13, 7], name)
                    XCTAssertEqual(DecodingTestHelpers.maxDeviation(of: image, from: pixel), 0, name)
                }
            }
        }
    }

    func testFitsIntoBoxKeepingAspect() throws {
        let png = makePNG(width: 300, height: 200)
        let decoder = ImageDecoder()
        let cases: [(TargetSize, [Int])] = [
            (TargetSize(width: 150, height: 150), [150, 100]),
            (TargetSize(width: 0, height: 40), [60, 40]),
            (TargetSize(width: 7, height: 0), [7, 5]),
            (TargetSize(width: 301, height: 0), [300, 200]),
            (.original, [300, 200]),
        ]
        for (target, expected) in cases {
            let image = try decoder.decode(png, target: target, limits: limits)
            XCTAssertEqual([image.width, image.height], expected, "\(target)")
            XCTAssertEqual([image.sourceWidth, image.sourceHeight], [300, 200])
        }
    }

    func testSolidColourSurvivesShrinking() throws {
        let png = makePNG(width: 97, height: 41, pattern: .solid(red: 10, green: 200, blue: 250, alpha: 77))
        let image = try ImageDecoder().decode(png, target: TargetSize(width: 20, height: 20), limits: limits)
        XCTAssertLessThanOrEqual(DecodingTestHelpers.maxDeviation(of: image, from: [10, 200, 250, 77]), 1)
    }

    func testHugeHeaderIsRefusedBeforeDecoding() {
        var png = makePNG(width: 8, height: 8)
        // Signature (8), IHDR length (4), "IHDR" (4), width (4), height (4), ..., CRC at 29.
        let side: [UInt8] = [0x00, 0x01, 0x86, 0xA0]  // 100000
        png.replaceSubrange(16..<20, with: side)
        png.replaceSubrange(20..<24, with: side)
        let crc = pngCRC(png[12..<29])
        png.replaceSubrange(29..<33, with: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: crc >> $0) })
        DecodingTestHelpers.assertDecodeThrows(.tooLarge, png)
        DecodingTestHelpers.assertDecodeThrows(.tooLarge, makePNG(width: 100, height: 100),
                                               limits: DecodeLimits(maxPixels: 9_999))
    }

    func testTruncatedIsADecodeError() {
        let png = makePNG(width: 64, height: 64, pattern: .gradient)
        // Even a file missing its IEND chunk (the last 12 bytes) is cut off: the decoder
        // reads on to IEND so the last IDAT's CRC is checked. (libspng does not read
        // IEND's own CRC, so a cut inside those last 4 bytes still decodes.)
        for keep in [png.count / 2, png.count - 12, png.count - 17, 8, 20] {
            DecodingTestHelpers.assertDecodeThrows(.decode, Array(png.prefix(keep)), "kept \(keep) bytes")
        }
    }
}
#endif
