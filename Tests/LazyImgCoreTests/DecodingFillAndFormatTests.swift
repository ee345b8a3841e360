#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_2 // ThreadSanitizer group 2 (see the Makefile's tsan)
import LazyImgCore
import TestSupport
import XCTest

/// Fill mode (cover the box, crop centred) and premultiplied BGRA output.
final class DecodingFillAndFormatTests: XCTestCase {
    private let limits = DecodeLimits()
    private let red: [UInt8] = [255, 0, 0, 255], green: [UInt8] = [0, 255, 0, 255], blue: [UInt8] = [0, 0, 255, 255]
    private let white: [UInt8] = [255, 255, 255, 255]

    private func pixel(_ image: DecodedImage, _ x: Int, _ y: Int) -> [UInt8] {
        Array(image.row(y)[(4 * x)..<(4 * x + 4)])
    }

    func testFillCropsTheMiddleThirdOfAWideImage() throws {
        // Thirds of 60 pixels; a 30x30 box covers at 1/2 scale (90x30) and keeps x 30..<60.
        let png = makePNG(width: 180, height: 60, pattern: .grid(columns: 3, rows: 1, colours: [red, green, blue]))
        let options = DecodeOptions(target: TargetSize(width: 30, height: 30), fit: .fill)
        let image = try ImageDecoder().decode(png, options: options, limits: limits)
        XCTAssertEqual([image.width, image.height, image.sourceWidth, image.sourceHeight], [30, 30, 180, 60])
        XCTAssertEqual(DecodingTestHelpers.maxDeviation(of: image, from: green), 0)
    }

    func testFillCropsTheMiddleOfATallImage() throws {
        let png = makePNG(width: 60, height: 180, pattern: .grid(columns: 1, rows: 3, colours: [red, green, blue]))
        let image = try ImageDecoder().decode(png, options: DecodeOptions(target: TargetSize(width: 20, height: 20), fit: .fill),
                                              limits: limits)
        XCTAssertEqual([image.width, image.height], [20, 20])
        XCTAssertEqual(DecodingTestHelpers.maxDeviation(of: image, from: green), 0)
    }

    func testFillWithJPEGDCTScalingCropsTheMiddle() throws {
        // 64-pixel thirds: DCT 1/2 gives 96x32 exactly, so only the crop remains.
        let jpeg = makeJPEG(width: 192, height: 64, quality: 95, pattern: .grid(columns: 3, rows: 1, colours: [red, green, blue]))
        let image = try ImageDecoder().decode(jpeg, options: DecodeOptions(target: TargetSize(width: 32, height: 32), fit: .fill),
                                              limits: limits)
        XCTAssertEqual([image.width, image.height], [32, 32])
        // Away from the colour edges JPEG keeps a flat colour within a few levels.
        for y in [0, 16, 31] {
            for x in 3..<29 {
                XCTAssertLessThanOrEqual(zip(pixel(image, x, y), green).map { abs(Int($0) - Int($1)) }.max() ?? 0, 8, "(\(x), \(y))")
            }
        }
        let left = pixel(image, 0, 16), right = pixel(image, 31, 16)
        XCTAssertGreaterThan(left[1], left[0], "left edge is mostly green, not red")
        XCTAssertGreaterThan(right[1], right[2], "right edge is mostly green, not blue")
    }

    func testFillNeverUpscalesAndKeepsTheBoxAspect() throws {
        // 50x200 in a 100x100 box: the middle 50x50 (rows 75..<125) at the source scale.
        let png = makePNG(width: 50, height: 200, pattern: .grid(columns: 1, rows: 4, colours: [red, green, blue, white]))
        let image = try ImageDecoder().decode(png, options: DecodeOptions(target: TargetSize(width: 100, height: 100), fit: .fill),
                                              limits: limits)
        XCTAssertEqual([image.width, image.height], [50, 50])
        XCTAssertEqual(pixel(image, 10, 0), green)
        XCTAssertEqual(pixel(image, 10, 24), green)
        XCTAssertEqual(pixel(image, 10, 25), blue)
        XCTAssertEqual(pixel(image, 10, 49), blue)
    }

    func testFillWithAZeroBoxSideIsFit() throws {
        let png = makePNG(width: 120, height: 60)
        for target in [TargetSize(width: 30, height: 0), TargetSize(width: 0, height: 15), TargetSize.original] {
            let filled = try ImageDecoder().decode(png, options: DecodeOptions(target: target, fit: .fill), limits: limits)
            let fitted = try ImageDecoder().decode(png, options: DecodeOptions(target: target, fit: .fit), limits: limits)
            XCTAssertEqual([filled.width, filled.height], [fitted.width, fitted.height], "\(target)")
        }
    }

    func testOldEntryPointFitsAsStraightRGBA() throws {
        let image = try ImageDecoder().decode(makePNG(width: 120, height: 60), target: TargetSize(width: 30, height: 30),
                                              limits: limits)
        XCTAssertEqual([image.width, image.height], [30, 15])
        XCTAssertEqual(image.format, .rgba8)
        XCTAssertFalse(image.isAnimated)
    }

    func testPremultipliedBGRAOfAHalfTransparentColour() throws {
        // (200, 100, 50) at alpha 128: each colour times 128/255, rounded, in B G R order.
        let expected: [UInt8] = [25, 50, 100, 128]
        let png = makePNG(width: 16, height: 8, pattern: .solid(red: 200, green: 100, blue: 50, alpha: 128))
        for target in [TargetSize.original, TargetSize(width: 4, height: 4)] {
            for fit in [FitMode.fit, .fill] {
                let image = try ImageDecoder().decode(png, options: DecodeOptions(target: target, fit: fit, format: .bgra8Premultiplied),
                                                      limits: limits)
                XCTAssertEqual(image.format, .bgra8Premultiplied)
                XCTAssertGreaterThanOrEqual(image.stride, 4 * image.width)
                XCTAssertEqual(DecodingTestHelpers.maxDeviation(of: image, from: expected), 0, "\(target) \(fit)")
            }
        }
        let straight = try ImageDecoder().decode(png, options: DecodeOptions(), limits: limits)
        XCTAssertEqual(DecodingTestHelpers.maxDeviation(of: straight, from: [200, 100, 50, 128]), 0)
    }

    func testPremultipliedBGRAOfOpaqueAndClearPixels() throws {
        let png = makePNG(width: 8, height: 4, pattern: .grid(columns: 2, rows: 1, colours: [[10, 20, 30, 255], [90, 80, 70, 0]]))
        let image = try ImageDecoder().decode(png, options: DecodeOptions(format: .bgra8Premultiplied), limits: limits)
        XCTAssertEqual(pixel(image, 0, 0), [30, 20, 10, 255])
        XCTAssertEqual(pixel(image, 7, 3), [0, 0, 0, 0])
    }
}
#endif
