#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_2 // ThreadSanitizer group 2 (see the Makefile's tsan)
@testable import LazyImgCore
import TestSupport
import XCTest

final class DecodingJPEGTests: XCTestCase {
    private let limits = DecodeLimits()

    func testOriginalSize() throws {
        let image = try ImageDecoder().decode(makeJPEG(width: 67, height: 31), target: .original, limits: limits)
        XCTAssertEqual([image.width, image.height, image.sourceWidth, image.sourceHeight], [67, 31, 67, 31])
        XCTAssertGreaterThanOrEqual(image.stride, image.width * 4)
    }

    func testFitsIntoBoxKeepingAspect() throws {
        let jpeg = makeJPEG(width: 640, height: 480)
        let decoder = ImageDecoder()
        let cases: [(TargetSize, [Int])] = [
            (TargetSize(width: 100, height: 100), [100, 75]),  // DCT 1/4 gives 160x120, then resample
            (TargetSize(width: 80, height: 0), [80, 60]),      // exactly 1/8: no resample needed
            (TargetSize(width: 0, height: 50), [67, 50]),
            (TargetSize(width: 1000, height: 1000), [640, 480]),  // never upscaled
            (TargetSize(width: 1, height: 1), [1, 1]),
        ]
        for (target, expected) in cases {
            let image = try decoder.decode(jpeg, target: target, limits: limits)
            XCTAssertEqual([image.width, image.height], expected, "\(target)")
            XCTAssertEqual([image.sourceWidth, image.sourceHeight], [640, 480])
        }
    }

    func testSolidColourSurvives() throws {
        let colour: [UInt8] = [200, 40, 90, 255]
        let jpeg = makeJPEG(width: 96, height: 64, quality: 95, pattern: .solid(red: 200, green: 40, blue: 90))
        for target in [TargetSize.original, TargetSize(width: 30, height: 30)] {
            let image = try ImageDecoder().decode(jpeg, target: target, limits: limits)
            // JPEG is lossy: allow a few levels of colour-conversion rounding.
            XCTAssertLessThanOrEqual(DecodingTestHelpers.maxDeviation(of: image, from: colour), 3, "\(target)")
        }
    }

    func testHugeHeaderIsRefusedBeforeDecoding() throws {
        // JPEG sides are 16-bit and libjpeg refuses sides past 65500, so the largest
        // claim that reaches the pixel check is 65500 x 65500 (4.3e9 pixels).
        var jpeg = makeJPEG(width: 16, height: 16)
        guard let sof = jpeg.indices.dropLast().first(where: { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 }) else {
            return XCTFail("no SOF0 marker in the generated JPEG")
        }
        // FF C0, length (2), precision (1), height (2), width (2)
        jpeg.replaceSubrange((sof + 5)...(sof + 8), with: [0xFF, 0xDC, 0xFF, 0xDC])
        DecodingTestHelpers.assertDecodeThrows(.tooLarge, jpeg)
        // A budget below the real size is enforced too.
        DecodingTestHelpers.assertDecodeThrows(.tooLarge, makeJPEG(width: 100, height: 100),
                                               limits: DecodeLimits(maxPixels: 9_999))
    }

    func testCutBeforeItsScanIsADecodeError() {
        // Cut-off scans are shown as damaged (DecodingDamagedFileTests); a file cut
        // before its frame or scan header has nothing to show.
        let jpeg = makeJPEG(width: 128, height: 128, pattern: .fineChecker)
        for keep in [3, 40, 200] {
            DecodingTestHelpers.assertDecodeThrows(.decode, Array(jpeg.prefix(keep)), "kept \(keep) bytes")
        }
    }

    func testScaledSizeCoversTheBox() {
        let source = (width: 640, height: 480)
        XCTAssertTrue(JPEGDecoder.scaledSize(width: source.width, height: source.height, covering: (100, 75)) == (160, 120))
        XCTAssertTrue(JPEGDecoder.scaledSize(width: source.width, height: source.height, covering: (80, 60)) == (80, 60))
        XCTAssertTrue(JPEGDecoder.scaledSize(width: source.width, height: source.height, covering: (640, 480)) == (640, 480))
        XCTAssertTrue(JPEGDecoder.scaledSize(width: source.width, height: source.height, covering: (600, 450)) == (640, 480))
        // 7/8 is the step below 1/1 and 5/8 would be too small.
        XCTAssertTrue(JPEGDecoder.scaledSize(width: source.width, height: source.height, covering: (500, 375)) == (560, 420))
    }
}
#endif
