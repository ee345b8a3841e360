#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_3 // ThreadSanitizer group 3 (see the Makefile's tsan)
import LazyImgCore
import TestSupport
import XCTest

final class DecodingWebPTests: XCTestCase {
    private let limits = DecodeLimits()

    func testLosslessDecodesExactly() throws {
        let colour: [UInt8] = [200, 100, 50, 128]
        let webp = makeWebP(width: 40, height: 20, pattern: .solid(red: 200, green: 100, blue: 50, alpha: 128))
        XCTAssertEqual(ImageFormat(sniffing: webp), .webp)
        let image = try ImageDecoder().decode(webp, target: .original, limits: limits)
        XCTAssertEqual([image.width, image.height, image.sourceWidth, image.sourceHeight], [40, 20, 40, 20])
        XCTAssertFalse(image.isAnimated)
        XCTAssertEqual(DecodingTestHelpers.maxDeviation(of: image, from: colour), 0)
        let small = try ImageDecoder().decode(webp, options: DecodeOptions(target: TargetSize(width: 10, height: 10),
                                                                           format: .bgra8Premultiplied), limits: limits)
        XCTAssertEqual([small.width, small.height], [10, 5])
        XCTAssertEqual(DecodingTestHelpers.maxDeviation(of: small, from: [25, 50, 100, 128]), 0)
    }

    func testLossyOpaqueShrinksWithLibwebpScaling() throws {
        let webp = makeWebP(width: 128, height: 64, lossless: false, quality: 95, pattern: .solid(red: 40, green: 160, blue: 220))
        for (target, fit, expected) in [(TargetSize(width: 32, height: 32), FitMode.fit, [32, 16]),
                                        (TargetSize(width: 32, height: 32), .fill, [32, 32]),
                                        (TargetSize(width: 50, height: 0), .fit, [50, 25])] {
            let image = try ImageDecoder().decode(webp, options: DecodeOptions(target: target, fit: fit), limits: limits)
            XCTAssertEqual([image.width, image.height], expected, "\(target) \(fit)")
            XCTAssertLessThanOrEqual(DecodingTestHelpers.maxDeviation(of: image, from: [40, 160, 220, 255]), 6, "\(target)")
        }
    }

    func testFillCropsTheMiddleThird() throws {
        let colours: [[UInt8]] = [[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255]]
        let webp = makeWebP(width: 90, height: 30, pattern: .grid(columns: 3, rows: 1, colours: colours))
        let image = try ImageDecoder().decode(webp, options: DecodeOptions(target: TargetSize(width: 10, height: 10), fit: .fill),
                                              limits: limits)
        XCTAssertEqual([image.width, image.height], [10, 10])
        XCTAssertEqual(DecodingTestHelpers.maxDeviation(of: image, from: colours[1]), 0)
    }

    func testTruncatedIsADecodeError() {
        let webp = makeWebP(width: 64, height: 64, lossless: false, pattern: .fineChecker)
        for keep in [webp.count / 2, webp.count - 3, 12, 30] {
            DecodingTestHelpers.assertDecodeThrows(.decode, Array(webp.prefix(keep)), "kept \(keep) of \(webp.count) bytes")
        }
    }

    func testHugeHeaderIsTooLarge() {
        // VP8L header after the 20-byte RIFF/chunk headers: 0x2F, then 14 bits of
        // width - 1 and 14 of height - 1 (little-endian): claim 16384 x 16384.
        var webp = makeWebP(width: 4, height: 4)
        XCTAssertEqual(Array(webp[12..<16]), Array("VP8L".utf8))
        let rest = UInt32(webp[24]) >> 4  // alpha hint and version bits stay
        let packed = UInt32(16383) | UInt32(16383) << 14 | rest << 28
        webp.replaceSubrange(21..<25, with: (0..<4).map { UInt8(truncatingIfNeeded: packed >> (8 * $0)) })
        DecodingTestHelpers.assertDecodeThrows(.tooLarge, webp)
        DecodingTestHelpers.assertDecodeThrows(.tooLarge, makeWebP(width: 100, height: 100), limits: DecodeLimits(maxPixels: 9_999))
    }

    func testCorpusWebPsDecodeToTheirREADMESizes() throws {
        let animated = try DecodingTestHelpers.assertCorpusMatchesREADME("webp", suffix: ".webp", atLeast: 80)
        XCTAssertEqual(animated, 4, "anim.webp, advertises_rgba_but_frames_are_rgb.webp, random_lossless, random_lossy")
    }
}
#endif
