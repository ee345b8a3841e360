#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_2 // ThreadSanitizer group 2 (see the Makefile's tsan)
import LazyImgCore
import TestSupport
import XCTest

/// JPEG EXIF orientation: pixels shown upright, sizes reported as displayed.
final class DecodingEXIFOrientationTests: XCTestCase {
    private let limits = DecodeLimits()
    private static let red: [UInt8] = [255, 0, 0, 255], green: [UInt8] = [0, 255, 0, 255]
    private static let blue: [UInt8] = [0, 0, 255, 255], white: [UInt8] = [255, 255, 255, 255]

    /// A 32x16 JPEG stored with quadrants red | green over blue | white.
    private let stored = makeJPEG(width: 32, height: 16, quality: 95,
                                  pattern: .grid(columns: 2, rows: 2, colours: [red, green, blue, white]))

    /// The quadrants a viewer shows for each orientation: top-left, top-right,
    /// bottom-left, bottom-right (from the TIFF 6.0 definitions of the tag).
    private let shown: [Int: [[UInt8]]] = [
        1: [red, green, blue, white],
        2: [green, red, white, blue],   // mirrored left-right
        3: [white, blue, green, red],   // turned 180 degrees
        4: [blue, white, red, green],   // mirrored top-bottom
        5: [red, blue, green, white],   // mirrored across the main diagonal
        6: [blue, red, white, green],   // turned a quarter clockwise
        7: [white, green, blue, red],   // mirrored across the anti-diagonal
        8: [green, white, red, blue],   // turned a quarter anticlockwise
    ]

    private func assertQuadrants(_ image: DecodedImage, _ expected: [[UInt8]], _ message: String,
                                 line: UInt = #line) {
        let points = [(image.width / 4, image.height / 4), (3 * image.width / 4, image.height / 4),
                      (image.width / 4, 3 * image.height / 4), (3 * image.width / 4, 3 * image.height / 4)]
        for ((x, y), colour) in zip(points, expected) {
            let actual = Array(image.row(y)[(4 * x)..<(4 * x + 4)])
            let worst = zip(actual, colour).map { abs(Int($0) - Int($1)) }.max() ?? 0
            XCTAssertLessThanOrEqual(worst, 12, "\(message) at (\(x), \(y)): \(actual)", line: line)
        }
    }

    func testEveryOrientationShowsUprightInBothByteOrders() throws {
        for orientation in 1...8 {
            for bigEndian in [true, false] {
                let jpeg = insertingEXIFOrientation(orientation, into: stored, bigEndian: bigEndian)
                let image = try ImageDecoder().decode(jpeg, target: .original, limits: limits)
                let message = "orientation \(orientation) \(bigEndian ? "MM" : "II")"
                let upright = orientation >= 5 ? [16, 32] : [32, 16]
                XCTAssertEqual([image.width, image.height], upright, message)
                XCTAssertEqual([image.sourceWidth, image.sourceHeight], upright, message)
                assertQuadrants(image, shown[orientation] ?? [], message)
            }
        }
    }

    func testTheBoxIsFittedToTheUprightSize() throws {
        for orientation in [1, 6, 8] {
            let jpeg = insertingEXIFOrientation(orientation, into: stored)
            let fitted = try ImageDecoder().decode(jpeg, target: TargetSize(width: 8, height: 8), limits: limits)
            XCTAssertEqual([fitted.width, fitted.height], orientation == 1 ? [8, 4] : [4, 8], "\(orientation)")
            assertQuadrants(fitted, shown[orientation] ?? [], "fit \(orientation)")
            // Fill on an upright 16x32 into 16x16 keeps the middle: the quadrant seam
            // runs across the centre, so the top and bottom halves keep their colours.
            let filled = try ImageDecoder().decode(jpeg, options: DecodeOptions(target: TargetSize(width: 16, height: 16), fit: .fill),
                                                   limits: limits)
            XCTAssertEqual([filled.width, filled.height], [16, 16], "\(orientation)")
            if orientation != 1 {
                assertQuadrants(filled, shown[orientation] ?? [], "fill \(orientation)")
            }
        }
    }

    func testUnknownOrMalformedEXIFLeavesTheImageAsStored() throws {
        for bad in [0, 9, 0xFFFF] {
            let image = try ImageDecoder().decode(insertingEXIFOrientation(bad, into: stored), target: .original, limits: limits)
            XCTAssertEqual([image.width, image.height], [32, 16], "value \(bad)")
            assertQuadrants(image, shown[1] ?? [], "value \(bad)")
        }
        // An APP1 whose IFD offset points far past the segment.
        var jpeg = insertingEXIFOrientation(6, into: stored)
        jpeg[2 + 4 + 6 + 4] = 0x7F  // first byte of the big-endian IFD0 offset
        let image = try ImageDecoder().decode(jpeg, target: .original, limits: limits)
        XCTAssertEqual([image.width, image.height], [32, 16])
    }

    func testPillowOrientationSetMatchesTheUprightOriginal() throws {
        // jpeg/README.md: hopper_orientation_2..8 are hopper.jpg stored turned or
        // mirrored, with the EXIF tag that undoes it.
        let root = try DecodingTestHelpers.corpus("jpeg/pillow")
        let reference = try ImageDecoder().decode(try DecodingTestHelpers.read(root + "/hopper.jpg"), target: .original,
                                                  limits: limits)
        for orientation in 2...8 {
            let path = root + "/hopper_orientation_\(orientation).jpg"
            let image = try ImageDecoder().decode(try DecodingTestHelpers.read(path), target: .original, limits: limits)
            XCTAssertEqual([image.width, image.height], [reference.width, reference.height], path)
            var total = 0
            for y in 0..<image.height {
                for (a, b) in zip(image.row(y), reference.row(y)) {
                    total += abs(Int(a) - Int(b))
                }
            }
            let meanDifference = Double(total) / Double(image.width * image.height * 4)
            // Separately compressed JPEGs differ by a few levels; a wrong turn differs
            // by tens.
            XCTAssertLessThan(meanDifference, 8, "\(path): mean difference \(meanDifference)")
        }
    }
}
#endif
