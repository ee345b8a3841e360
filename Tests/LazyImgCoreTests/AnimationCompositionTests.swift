#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_5 // ThreadSanitizer group 5 (see the Makefile's tsan)
import TestSupport
import XCTest
@testable import LazyImgCore

/// Frames composed by the player (`AnimationComposer`) against a second composition
/// at full size, shrunk into the same box: giflib's DGifSlurp composed by the GIF89a
/// rules in the tests, and libwebp's own WebPAnimDecoder.
///
/// GIF frames must match exactly: a GIF pixel is drawn or not, so both compositions
/// hold the same canvas bytes and the shrink is the same code. WebP frames may differ
/// by `webpTolerance`: blending is arithmetic, and WebPAnimDecoder approximates the
/// format's formula where the player computes it exactly and rounds once. libwebp
/// weighs the canvas by a_d (256 - a_s) >> 8 instead of a_d (255 - a_s) / 255, divides
/// through a truncated reciprocal of the blended alpha, and truncates the result:
/// three truncations, each under 1, so a blended channel differs by at most 3 at full
/// size. Shrinking averages values that each differ by at most 3, and rounds each
/// average once: 4. The largest difference seen over these files is printed
/// ("animation: ..."); it was 3.
final class AnimationCompositionTests: XCTestCase {
    static let webpTolerance = 4
    private let limits = DecodeLimits()
    private let palette: [[UInt8]] = [[255, 0, 0], [0, 255, 0], [0, 0, 255], [250, 250, 20], [9, 9, 9]]
    private static let boxes = [
        DecodeOptions(),
        DecodeOptions(target: TargetSize(width: 37, height: 23)),
        DecodeOptions(target: TargetSize(width: 13, height: 13), fit: .fill, format: .bgra8Premultiplied),
    ]

    /// Indices varying with x, y and `seed`, so frames and rows differ.
    private func gifFrame(left: Int, top: Int, width: Int, height: Int, seed: Int, transparentIndex: UInt8? = nil,
                          disposal: Int = 0, interlaced: Bool = false, delay: Int = 4,
                          palette: [[UInt8]]? = nil) -> GIFTestFrame {
        let indices = (0..<(width * height)).map { UInt8(($0 % width * 3 + $0 / width + seed) % 5) }
        return GIFTestFrame(left: left, top: top, width: width, height: height, indices: indices,
                            interlaced: interlaced, transparentIndex: transparentIndex, delay: delay,
                            disposal: disposal, palette: palette)
    }

    /// Every kind of frame a browser composes: offsets, transparency, each disposal,
    /// interlacing, a local palette, a frame reaching past the screen.
    private func disposalGIF() -> [UInt8] {
        makeGIF(screenWidth: 61, screenHeight: 43, palette: palette, frames: [
            gifFrame(left: 0, top: 0, width: 61, height: 43, seed: 0),
            gifFrame(left: 5, top: 7, width: 20, height: 15, seed: 1, transparentIndex: 2, disposal: 2),
            gifFrame(left: 30, top: 3, width: 25, height: 30, seed: 2, transparentIndex: 4, disposal: 3),
            gifFrame(left: 11, top: 20, width: 40, height: 21, seed: 3, interlaced: true),
            gifFrame(left: 50, top: 30, width: 30, height: 30, seed: 4, transparentIndex: 0, disposal: 1),
            gifFrame(left: 1, top: 1, width: 17, height: 9, seed: 5, disposal: 3,
                     palette: [[10, 200, 30], [200, 10, 30], [30, 10, 200], [0, 0, 0], [255, 255, 255]]),
            gifFrame(left: 3, top: 2, width: 50, height: 37, seed: 6, transparentIndex: 1),
        ], loopCount: 0)
    }

    /// Frame `index` of the reference, shrunk by the loader's own builder into `options`.
    private func shrink(_ reference: ReferenceAnimation, frame index: Int, _ options: DecodeOptions) throws -> DecodedImage {
        let geometry = OutputGeometry(displayedWidth: reference.width, height: reference.height, orientation: .up,
                                      options: options)
        let builder = DecodedImageBuilder(geometry: geometry, format: options.format, sourceWidth: reference.width,
                                          sourceHeight: reference.height, isAnimated: true)
        return try reference.canvases[index].withUnsafeBytes { canvas in
            try builder.buildByRows(decodedWidth: reference.width, decodedHeight: reference.height) {
                (addRow: (UnsafeRawPointer) -> Void) in
                for y in 0..<reference.height { addRow(canvas.baseAddress! + y * reference.width * 4) }
            }
        }
    }

    /// The largest difference of a channel between two images, of visible pixels: the
    /// colour a fully transparent pixel carries is not seen (WebPAnimDecoder keeps the
    /// frame's own there; the player leaves the canvas's), and the box filter gives it
    /// no weight.
    private func largestDifference(_ a: DecodedImage, _ b: DecodedImage) -> Int {
        guard a.width == b.width, a.height == b.height else { return .max }
        var largest = 0
        for y in 0..<a.height {
            let rowA = a.row(y), rowB = b.row(y)
            for x in Swift.stride(from: 0, to: rowA.count, by: 4) where rowA[x + 3] != 0 || rowB[x + 3] != 0 {
                for channel in 0..<4 { largest = max(largest, abs(Int(rowA[x + channel]) - Int(rowB[x + channel]))) }
            }
        }
        return largest
    }

    /// Every frame of `bytes`, in order and then out of order (composed again from the
    /// first), against the reference in every box; returns the largest difference.
    @discardableResult
    private func compare(_ bytes: [UInt8], with reference: ReferenceAnimation, tolerance: Int,
                         boxes: [DecodeOptions] = AnimationCompositionTests.boxes,
                         file: StaticString = #filePath, line: UInt = #line) throws -> Int {
        let source = try XCTUnwrap(AnimationSource.make(from: bytes, limits: limits), file: file, line: line)
        XCTAssertEqual(source.frameCount, reference.canvases.count, file: file, line: line)
        XCTAssertEqual([source.canvasWidth, source.canvasHeight], [reference.width, reference.height], file: file, line: line)
        var largest = 0
        for options in boxes {
            let composer = AnimationComposer(source)
            // Every frame is composed; of a long animation 20 spread over it are
            // compared, so the 380 frames of gifplayer-muybridge.gif stay quick in a
            // debug build.
            let step = max(1, source.frameCount / 20)
            let order = Array(Swift.stride(from: 0, to: source.frameCount, by: step))
                + [source.frameCount - 1, 1, 0, source.frameCount / 2]
            for index in order {
                let frame = try composer.render(frame: index, options: options, limits: limits)
                let difference = largestDifference(frame, try shrink(reference, frame: index, options))
                largest = max(largest, difference)
                XCTAssertLessThanOrEqual(difference, tolerance, "frame \(index) in \(options)", file: file, line: line)
            }
        }
        return largest
    }

    func testGIFFramesMatchTheReferenceCompositionExactly() throws {
        let gif = disposalGIF()
        try compare(gif, with: try XCTUnwrap(ReferenceAnimation.gif(gif)), tolerance: 0)
    }

    /// The corpus's animated files (those its README says Pillow read several frames
    /// from): the frame count agrees with Pillow's, the frames with the reference.
    @discardableResult
    private func compareCorpus(_ folder: String, suffix: String, reference: ([UInt8]) -> ReferenceAnimation?,
                               tolerance: Int, atLeast minimum: Int) throws -> Int {
        let root = try DecodingTestHelpers.corpus(folder)
        var compared = 0, largest = 0
        for expected in try DecodingTestHelpers.pillowExpectations(in: folder)
        where expected.frames > 1 && expected.path.hasSuffix(suffix) {
            let bytes = try DecodingTestHelpers.read(root + "/" + expected.path)
            let source = try XCTUnwrap(AnimationSource.make(from: bytes, limits: limits), expected.path)
            XCTAssertEqual(source.frameCount, expected.frames, expected.path)
            largest = max(largest, try compare(bytes, with: try XCTUnwrap(reference(bytes), expected.path),
                                               tolerance: tolerance))
            compared += 1
        }
        XCTAssertGreaterThanOrEqual(compared, minimum, "animated files in corpus/\(folder)")
        return largest
    }

    func testGIFFramesOfTheCorpusMatchTheReferenceCompositionExactly() throws {
        try compareCorpus("gif", suffix: ".gif", reference: ReferenceAnimation.gif, tolerance: 0, atLeast: 6)
    }

    /// Semi-transparent frames blended and written over, disposed and kept, lossless
    /// (exact pixels, so only the blending differs) and lossy.
    private func blendingWebP() -> [UInt8] {
        func frame(left: Int, top: Int, width: Int, height: Int, seed: Int, lossless: Bool = true,
                   blends: Bool = true, disposes: Bool = false) -> WebPTestFrame {
            var rgba: [UInt8] = []
            for y in 0..<height {
                for x in 0..<width {
                    let alpha: UInt8 = [0, 40, 128, 200, 255][(x / 3 + y / 2 + seed) % 5]
                    rgba += [UInt8((x * 37 + seed * 50) & 255), UInt8((y * 23 + seed * 90) & 255),
                             UInt8((x * y + seed) & 255), alpha]
                }
            }
            var frame = WebPTestFrame(left: left, top: top, width: width, height: height,
                                      webp: makeWebP(rgba: rgba, width: width, height: height, lossless: lossless))
            frame.blends = blends
            frame.disposes = disposes
            frame.duration = 30 + seed * 10
            return frame
        }
        return makeAnimatedWebP(canvasWidth: 64, canvasHeight: 48, frames: [
            frame(left: 0, top: 0, width: 64, height: 48, seed: 0, blends: false),
            frame(left: 6, top: 4, width: 30, height: 20, seed: 1),
            frame(left: 20, top: 10, width: 40, height: 36, seed: 2, disposes: true),
            frame(left: 2, top: 30, width: 50, height: 18, seed: 3, blends: false),
            frame(left: 10, top: 2, width: 44, height: 40, seed: 4, lossless: false),
            frame(left: 0, top: 0, width: 64, height: 48, seed: 5),
        ], loopCount: 3)
    }

    func testWebPFramesMatchLibwebpsCompositor() throws {
        let webp = blendingWebP()
        let largest = try compare(webp, with: try XCTUnwrap(ReferenceAnimation.webp(webp)), tolerance: Self.webpTolerance)
        print("animation: WebP frames against WebPAnimDecoder: largest difference \(largest)")
    }

    func testWebPFramesOfTheCorpusMatchLibwebpsCompositor() throws {
        let largest = try compareCorpus("webp", suffix: ".webp", reference: ReferenceAnimation.webp,
                                        tolerance: Self.webpTolerance, atLeast: 3)
        print("animation: corpus WebP frames against WebPAnimDecoder: largest difference \(largest)")
    }

    /// A GIF's frame 0 from the player is the still GIFDecoder makes, byte for byte
    /// (both draw the frame on a transparent canvas and shrink it by rows). A WebP
    /// still may be shrunk by libwebp's own scaler (WebPDecoder), so the player hands
    /// out the cached still as frame 0 instead (AnimationPlaybackTests).
    func testTheFirstFrameIsTheDecodersStill() throws {
        for bytes in [disposalGIF()] {
            let source = try XCTUnwrap(AnimationSource.make(from: bytes, limits: limits))
            for options in Self.boxes {
                let still = try ImageDecoder().decode(bytes, options: options, limits: limits)
                let frame = try AnimationComposer(source).render(frame: 0, options: options, limits: limits)
                XCTAssertEqual(largestDifference(still, frame), 0, "\(source.format) in \(options)")
                XCTAssertTrue(still.isAnimated)
            }
        }
    }

    func testDurationsAndLoopCountsAsBrowsersPlayThem() throws {
        func gif(delays: [Int], loopCount: Int?) throws -> AnimationSource {
            let frames = delays.map { gifFrame(left: 0, top: 0, width: 4, height: 4, seed: $0, delay: $0) }
            return try XCTUnwrap(AnimationSource.make(from: makeGIF(screenWidth: 4, screenHeight: 4, palette: palette,
                                                                   frames: frames, loopCount: loopCount), limits: limits))
        }
        // 0 and 1 centisecond flash in ads: 100 ms. 2 is kept; 65535 (655 s) too.
        let source = try gif(delays: [0, 1, 2, 7, 65535], loopCount: nil)
        XCTAssertEqual((0..<5).map(source.duration(ofFrame:)), [100, 100, 20, 70, 655_350])
        XCTAssertEqual(source.loopCount, 1, "no NETSCAPE block: once")
        XCTAssertEqual(try gif(delays: [5, 5], loopCount: 0).loopCount, 0, "forever")
        XCTAssertEqual(try gif(delays: [5, 5], loopCount: 2).loopCount, 3, "2 repeats after the first play")

        let webp = try XCTUnwrap(AnimationSource.make(from: blendingWebP(), limits: limits))
        XCTAssertEqual(webp.loopCount, 3, "WebP counts plays")
        XCTAssertEqual((0..<6).map(webp.duration(ofFrame:)), [30, 40, 50, 60, 70, 80], "20 ms and up as written")
    }

    func testTheFrameForATimeWrapsUntilTheLastPlayEnds() throws {
        let frames = [3, 5, 2].map { gifFrame(left: 0, top: 0, width: 4, height: 4, seed: $0, delay: $0) }
        let source = try XCTUnwrap(AnimationSource.make(from: makeGIF(screenWidth: 4, screenHeight: 4, palette: palette,
                                                                     frames: frames, loopCount: 1), limits: limits))
        XCTAssertEqual(source.duration, 100)
        let expected: [(UInt64, Int, UInt64?)] = [(0, 0, 30), (29, 0, 30), (30, 1, 80), (79, 1, 80), (80, 2, 100),
                                                  (100, 0, 130), (199, 2, 200), (200, 2, nil), (10_000, 2, nil)]
        let forever = try XCTUnwrap(AnimationSource.make(from: makeGIF(screenWidth: 4, screenHeight: 4, palette: palette,
                                                                      frames: frames, loopCount: 0), limits: limits))
        XCTAssertEqual(forever.frame(at: .max).nextChange, .max, "saturated, not wrapped")
        for (time, index, next) in expected {
            let found = source.frame(at: time)
            XCTAssertEqual(found.index, index, "at \(time)")
            XCTAssertEqual(found.nextChange, next, "at \(time)")
        }
    }

    /// An animation a composer could not hold within max_decode_bytes plays as a
    /// still: no source, whatever the frames.
    func testACanvasOverTheWorkingMemoryLimitIsNotPlayed() throws {
        let gif = disposalGIF()
        // 61 x 43 x 4 for the canvas plus the largest "restore to previous" rectangle.
        let needed = AnimationComposer.persistentBytes(of: try XCTUnwrap(AnimationSource.make(from: gif, limits: limits)))
        XCTAssertEqual(needed, 61 * 43 * 4 + 25 * 30 * 4)
        XCTAssertNil(AnimationSource.make(from: gif, limits: DecodeLimits(maxWorkingBytes: needed - 1)))
        XCTAssertNotNil(AnimationSource.make(from: gif, limits: DecodeLimits(maxWorkingBytes: needed)))
    }
}
#endif
