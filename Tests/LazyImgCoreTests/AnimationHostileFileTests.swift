#if !LAZYIMG_SUBSET || LAZYIMG_ASAN_SUBSET || LAZYIMG_TSAN_SUBSET_5 // the AddressSanitizer subset, and ThreadSanitizer group 5
import TestSupport
import XCTest
@testable import LazyImgCore

/// Files built to hurt a player: many frames, frames that lie about their data, frames
/// over the limits. What is counted is what the file holds, never what it claims, and
/// every table and buffer stays within a bound set by the limits.
final class AnimationHostileFileTests: XCTestCase {
    private let limits = DecodeLimits()
    private let palette: [[UInt8]] = [[255, 0, 0], [0, 0, 255]]

    private func tinyFrames(_ count: Int, side: Int = 2) -> [GIFTestFrame] {
        (0..<count).map { GIFTestFrame(width: side, height: side, indices: Array(repeating: UInt8($0 & 1), count: side * side)) }
    }

    func testTenThousandFramesAllPlay() throws {
        let gif = makeGIF(screenWidth: 2, screenHeight: 2, palette: palette, frames: tinyFrames(10_000))
        let source = try XCTUnwrap(AnimationSource.make(from: gif, limits: limits))
        XCTAssertEqual(source.frameCount, 10_000)
        // No delays: each frame plays 100 ms.
        XCTAssertEqual(source.duration, 1_000_000)
        let composer = AnimationComposer(source)
        let last = try composer.render(frame: 9_999, options: DecodeOptions(), limits: limits)
        XCTAssertEqual(Array(last.row(0)[0..<4]), [0, 0, 255, 255], "frame 9999 is blue")
        XCTAssertLessThan(source.byteCount, gif.count + 10_000 * 64, "the frame table stays small")
    }

    func testFramesPastTheCapAreNotPlayed() throws {
        let gif = makeGIF(screenWidth: 1, screenHeight: 1, palette: palette,
                          frames: tinyFrames(AnimationSource.maxFrames + 100, side: 1))
        XCTAssertEqual(try XCTUnwrap(AnimationSource.make(from: gif, limits: limits)).frameCount, AnimationSource.maxFrames)
    }

    /// A frame whose data runs past the end of the file is not a frame: the count is
    /// what the bytes hold.
    func testACutFrameIsNotCounted() throws {
        let gif = makeGIF(screenWidth: 2, screenHeight: 2, palette: palette, frames: tinyFrames(3))
        // Drop the trailer and the last frame's block terminator.
        let cut = Array(gif.dropLast(2))
        XCTAssertEqual(try XCTUnwrap(AnimationSource.make(from: cut, limits: limits)).frameCount, 2)
        // Garbage after frame 2 ends the walk there too.
        let secondEnd = try XCTUnwrap(AnimationSource.make(from: gif, limits: limits)).frames[1].dataEnd
        XCTAssertEqual(try XCTUnwrap(AnimationSource.make(from: Array(gif[..<secondEnd]) + [0x99, 1, 2, 3],
                                                           limits: limits)).frameCount, 2)
        // One frame left: a still.
        let firstEnd = try XCTUnwrap(AnimationSource.make(from: gif, limits: limits)).frames[0].dataEnd
        XCTAssertNil(AnimationSource.make(from: Array(gif[..<firstEnd]), limits: limits))
    }

    /// A later frame over max_pixels ends the animation before it: its LZW data would
    /// cost that many pixels of work each time it plays.
    func testAFrameOverMaxPixelsEndsTheAnimation() throws {
        var frames = tinyFrames(3)
        frames[2] = GIFTestFrame(width: 300, height: 300, indices: Array(repeating: 1, count: 90_000))
        let gif = makeGIF(screenWidth: 2, screenHeight: 2, palette: palette, frames: frames)
        XCTAssertEqual(try XCTUnwrap(AnimationSource.make(from: gif, limits: DecodeLimits(maxPixels: 50_000))).frameCount, 2)
        XCTAssertEqual(try XCTUnwrap(AnimationSource.make(from: gif, limits: limits)).frameCount, 3)
    }

    /// Corrupt LZW data in a middle frame: the frame shows what it drew, the rest play.
    func testACorruptFramePlaysOn() throws {
        var gif = makeGIF(screenWidth: 2, screenHeight: 2, palette: palette, frames: tinyFrames(3))
        let source = try XCTUnwrap(AnimationSource.make(from: gif, limits: limits))
        // The LZW minimum code size byte of frame 2: 0 is no valid size.
        let descriptor = source.frames[1].dataStart
        gif[descriptor + 10] = 0
        let damaged = try XCTUnwrap(AnimationSource.make(from: gif, limits: limits))
        let composer = AnimationComposer(damaged)
        for index in 0..<3 {
            XCTAssertNoThrow(try composer.render(frame: index, options: DecodeOptions(), limits: limits))
        }
        let third = try composer.render(frame: 2, options: DecodeOptions(), limits: limits)
        XCTAssertEqual(Array(third.row(0)[0..<4]), [255, 0, 0, 255], "frame 3 drawn after the broken one")
    }

    func testWebPFramesOutsideTheCanvasOrCutShortEndTheAnimation() throws {
        let still = makeWebP(width: 4, height: 4)
        let inside = WebPTestFrame(left: 0, top: 0, width: 4, height: 4, webp: still)
        let outside = WebPTestFrame(left: 2, top: 0, width: 4, height: 4, webp: still)
        let bad = makeAnimatedWebP(canvasWidth: 4, canvasHeight: 4, frames: [inside, inside, outside, inside])
        XCTAssertEqual(try XCTUnwrap(AnimationSource.make(from: bad, limits: limits)).frameCount, 2)
        let good = makeAnimatedWebP(canvasWidth: 4, canvasHeight: 4, frames: [inside, inside, inside])
        XCTAssertEqual(try XCTUnwrap(AnimationSource.make(from: Array(good.dropLast(5)), limits: limits)).frameCount, 2)
    }

    /// A WebP frame whose bitstream is not the size its ANMF header says is not drawn,
    /// and one whose decode would need more working memory than allowed with the
    /// canvas is skipped; neither stops the others.
    func testWebPFramesThatDoNotFitAreSkipped() throws {
        let red = makeWebP(width: 4, height: 4, pattern: .solid(red: 255, green: 0, blue: 0))
        let blue = makeWebP(width: 4, height: 4, pattern: .solid(red: 0, green: 0, blue: 255))
        let small = makeWebP(width: 2, height: 2, pattern: .solid(red: 0, green: 255, blue: 0))
        let lying = WebPTestFrame(left: 0, top: 0, width: 4, height: 4, webp: small)
        let webp = makeAnimatedWebP(canvasWidth: 4, canvasHeight: 4, frames: [
            WebPTestFrame(left: 0, top: 0, width: 4, height: 4, webp: red),
            lying,
            WebPTestFrame(left: 0, top: 0, width: 4, height: 4, webp: blue),
        ])
        let source = try XCTUnwrap(AnimationSource.make(from: webp, limits: limits))
        let composer = AnimationComposer(source)
        let second = try composer.render(frame: 1, options: DecodeOptions(), limits: limits)
        XCTAssertEqual(Array(second.row(0)[0..<4]), [255, 0, 0, 255], "the lying frame left frame 1 showing")
        let third = try composer.render(frame: 2, options: DecodeOptions(), limits: limits)
        XCTAssertEqual(Array(third.row(0)[0..<4]), [0, 0, 255, 255])
        // Room for the canvas (64 bytes) but not for a frame's decode.
        let tight = DecodeLimits(maxWorkingBytes: 64)
        let starved = AnimationComposer(try XCTUnwrap(AnimationSource.make(from: webp, limits: tight)))
        let nothing = try starved.render(frame: 2, options: DecodeOptions(), limits: tight)
        XCTAssertEqual(Array(nothing.row(0)[0..<4]), [0, 0, 0, 0], "no frame fits: the canvas stays transparent")
    }
}
#endif
