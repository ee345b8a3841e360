#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_2 // ThreadSanitizer group 2 (see the Makefile's tsan)
import LazyImgCore
import TestSupport
import XCTest

final class DecodingGIFTests: XCTestCase {
    private let limits = DecodeLimits()
    private let palette: [[UInt8]] = [[255, 0, 0], [0, 255, 0], [0, 0, 255], [9, 9, 9]]

    /// A frame whose index at (x, y) is (x + y) % 4, so every row differs from its
    /// neighbours and a wrong interlace order shows.
    private func frame(left: Int = 0, top: Int = 0, width: Int, height: Int, interlaced: Bool = false,
                       transparentIndex: UInt8? = nil) -> GIFTestFrame {
        let indices = (0..<(width * height)).map { UInt8(($0 % width + $0 / width) % 4) }
        return GIFTestFrame(left: left, top: top, width: width, height: height, indices: indices, interlaced: interlaced,
                            transparentIndex: transparentIndex)
    }

    func testInterlacedOffsetFrameWithTransparencyOnATransparentCanvas() throws {
        let gif = makeGIF(screenWidth: 8, screenHeight: 11, palette: palette,
                          frames: [frame(left: 2, top: 1, width: 5, height: 9, interlaced: true, transparentIndex: 3)])
        XCTAssertFalse(gif.isEmpty)
        let image = try ImageDecoder().decode(gif, target: .original, limits: limits)
        XCTAssertEqual([image.width, image.height, image.sourceWidth, image.sourceHeight], [8, 11, 8, 11])
        XCTAssertFalse(image.isAnimated)
        for y in 0..<11 {
            for x in 0..<8 {
                let actual = Array(image.row(y)[(4 * x)..<(4 * x + 4)])
                var expected: [UInt8] = [0, 0, 0, 0]
                if (2..<7).contains(x) && (1..<10).contains(y) {
                    let index = ((x - 2) + (y - 1)) % 4
                    if index != 3 { expected = palette[index] + [255] }
                }
                XCTAssertEqual(actual, expected, "(\(x), \(y))")
            }
        }
    }

    func testFrameReachingPastTheScreenIsClipped() throws {
        let gif = makeGIF(screenWidth: 4, screenHeight: 4, palette: palette, frames: [frame(left: 2, top: 2, width: 6, height: 6)])
        let image = try ImageDecoder().decode(gif, target: .original, limits: limits)
        XCTAssertEqual([image.width, image.height], [4, 4])
        XCTAssertEqual(Array(image.row(2)[8..<12]), [255, 0, 0, 255])
        XCTAssertEqual(Array(image.row(0)[0..<4]), [0, 0, 0, 0])
    }

    func testSecondImageMarksTheImageAnimated() throws {
        let one = frame(width: 6, height: 4)
        var two = frame(width: 6, height: 4)
        two.indices = two.indices.map { ($0 + 1) % 4 }
        let gif = makeGIF(screenWidth: 6, screenHeight: 4, palette: palette, frames: [one, two])
        let image = try ImageDecoder().decode(gif, target: TargetSize(width: 3, height: 3), limits: limits)
        XCTAssertTrue(image.isAnimated)
        XCTAssertEqual([image.width, image.height], [3, 2])
        let first = try ImageDecoder().decode(gif, target: .original, limits: limits)
        XCTAssertEqual(Array(first.row(0)[0..<4]), [255, 0, 0, 255], "the first frame, not the second")
    }

    func testPremultipliedBGRAOutput() throws {
        let gif = makeGIF(screenWidth: 4, screenHeight: 1, palette: palette,
                          frames: [GIFTestFrame(width: 4, height: 1, indices: [0, 1, 2, 3], transparentIndex: 3)])
        let image = try ImageDecoder().decode(gif, options: DecodeOptions(format: .bgra8Premultiplied), limits: limits)
        XCTAssertEqual(Array(image.row(0)), [0, 0, 255, 255, 0, 255, 0, 255, 255, 0, 0, 255, 0, 0, 0, 0])
    }

    func testTruncatedFrameIsADecodeError() {
        let gif = makeGIF(screenWidth: 64, screenHeight: 64, palette: palette, frames: [frame(width: 64, height: 64)])
        for keep in [gif.count / 2, gif.count - 4, 13, 30] {
            DecodingTestHelpers.assertDecodeThrows(.decode, Array(gif.prefix(keep)), "kept \(keep) of \(gif.count) bytes")
        }
    }

    func testHugeScreenOrFrameIsTooLarge() {
        var gif = makeGIF(screenWidth: 4, screenHeight: 4, palette: palette, frames: [frame(width: 4, height: 4)])
        gif.replaceSubrange(6..<10, with: [0xFF, 0xFF, 0xFF, 0xFF])  // 65535 x 65535 screen
        DecodingTestHelpers.assertDecodeThrows(.tooLarge, gif)
        let wide = makeGIF(screenWidth: 200, screenHeight: 100, palette: palette, frames: [frame(width: 200, height: 100)])
        DecodingTestHelpers.assertDecodeThrows(.tooLarge, wide, limits: DecodeLimits(maxPixels: 19_999))
    }

    func testCorpusGIFsDecodeToTheirREADMESizes() throws {
        _ = try DecodingTestHelpers.assertCorpusMatchesREADME("gif", suffix: ".gif", atLeast: 30)
    }
}
#endif
