import LazyImgCore
import XCTest

extension DecodingTestHelpers {
    /// Decodes `file`, a 120 x 60 image of one opaque colour (200, 100, 50), at full
    /// size and into a 40 x 40 box both ways, each within `tolerance` of the colour.
    static func assertSolidColourShrinksToTheBox(_ file: [UInt8], tolerance: Int,
                                                 file path: StaticString = #filePath, line: UInt = #line) throws {
        let colour: [UInt8] = [200, 100, 50, 255], limits = DecodeLimits()
        let full = try ImageDecoder().decode(file, target: .original, limits: limits)
        XCTAssertEqual([full.width, full.height, full.sourceWidth, full.sourceHeight], [120, 60, 120, 60],
                       file: path, line: line)
        XCTAssertFalse(full.isAnimated, file: path, line: line)
        XCTAssertLessThanOrEqual(maxDeviation(of: full, from: colour), tolerance, file: path, line: line)
        for (fit, expected) in [(FitMode.fit, [40, 20]), (.fill, [40, 40])] {
            let image = try ImageDecoder().decode(file, options: DecodeOptions(target: TargetSize(width: 40, height: 40),
                                                                               fit: fit), limits: limits)
            XCTAssertEqual([image.width, image.height, image.sourceWidth, image.sourceHeight], expected + [120, 60],
                           "\(fit)", file: path, line: line)
            XCTAssertLessThanOrEqual(maxDeviation(of: image, from: colour), tolerance, "\(fit)", file: path, line: line)
        }
    }

    /// Decodes `file`, a 64 x 32 image of (200, 100, 50) at alpha 128, into a 16 x 16 box
    /// as straight RGBA and at full size as premultiplied BGRA, within `tolerance`.
    static func assertHalfTransparentInBothFormats(_ file: [UInt8], tolerance: Int,
                                                   file path: StaticString = #filePath, line: UInt = #line) throws {
        let limits = DecodeLimits()
        let straight = try ImageDecoder().decode(file, target: TargetSize(width: 16, height: 16), limits: limits)
        XCTAssertEqual([straight.width, straight.height], [16, 8], file: path, line: line)
        XCTAssertLessThanOrEqual(maxDeviation(of: straight, from: [200, 100, 50, 128]), tolerance, file: path, line: line)
        let premultiplied = try ImageDecoder().decode(file, options: DecodeOptions(format: .bgra8Premultiplied),
                                                      limits: limits)
        XCTAssertEqual(premultiplied.format, .bgra8Premultiplied, file: path, line: line)
        XCTAssertLessThanOrEqual(maxDeviation(of: premultiplied, from: [25, 50, 100, 128]), tolerance,
                                 file: path, line: line)
    }

    /// `file` of `pixels` pixels decodes with max_pixels at exactly that, and is too
    /// large at one less.
    static func assertMaxPixelsEdge(_ file: [UInt8], pixels: Int, file path: StaticString = #filePath, line: UInt = #line) {
        XCTAssertNoThrow(try ImageDecoder().decode(file, target: .original, limits: DecodeLimits(maxPixels: pixels)),
                         file: path, line: line)
        assertDecodeThrows(.tooLarge, file, limits: DecodeLimits(maxPixels: pixels - 1), file: path, line: line)
    }
}
