#if !LAZYIMG_SUBSET || LAZYIMG_ASAN_SUBSET || LAZYIMG_TSAN_SUBSET_5 // the AddressSanitizer subset, and ThreadSanitizer group 5
import LazyImgCore
import TestSupport
import XCTest

/// Crafted files against the decoders (issue 17): what a few bytes can ask for is
/// refused, or bounded, before anything is allocated; and what browsers skip is skipped.
final class DecodingHostileFileTests: XCTestCase {
    private let limits = DecodeLimits()

    /// Decodes, expecting `.tooLarge`, and returns the decoder's reason.
    private func refusal(_ bytes: [UInt8], limits: DecodeLimits = DecodeLimits(),
                         file: StaticString = #filePath, line: UInt = #line) -> String {
        let decoder = ImageDecoder()
        do {
            let image = try decoder.decode(bytes, target: TargetSize(width: 64, height: 64), limits: limits)
            XCTFail("decoded \(image.width)x\(image.height)", file: file, line: line)
        } catch {
            XCTAssertEqual(error, .tooLarge, file: file, line: line)
        }
        return decoder.lastFailureReason
    }

    func testImageSizesWhoseBytesOverflowAreRefused() {
        // 2^62 pixels a row: 4 bytes each wrapped to a zero-byte buffer before.
        XCTAssertNil(DecodedImage(width: 1 << 62, height: 1, sourceWidth: 1, sourceHeight: 1))
        XCTAssertNil(DecodedImage(width: Int.max / 2, height: 1, sourceWidth: 1, sourceHeight: 1))
        XCTAssertNil(DecodedImage(width: 1 << 20, height: 1 << 20, sourceWidth: 1, sourceHeight: 1))
        XCTAssertNotNil(DecodedImage(width: 64, height: 64, sourceWidth: 64, sourceHeight: 64))
    }

    func testAFillCropCountsTheShrunkImageItCutsFrom() throws {
        // 16 x 40,000 filling a 16 x 16 box shrinks to 16 x 40,000 before the crop
        // (2.4 MiB): the file's aspect ratio, not the box, sizes that buffer.
        let small = DecodeLimits(maxWorkingBytes: 1 << 20)
        let fill = DecodeOptions(target: TargetSize(width: 16, height: 16), fit: .fill)
        let fit = DecodeOptions(target: TargetSize(width: 16, height: 16))
        for file in [makeFlatPNG(width: 16, height: 40_000, colorType: .gray), makeFlatJPEG(width: 16, height: 40_000, layout: .gray)] {
            let decoder = ImageDecoder()
            XCTAssertThrowsError(try decoder.decode(file, options: fill, limits: small)) { error in
                XCTAssertEqual(error as? LoaderError, .tooLarge)
            }
            XCTAssertTrue(decoder.lastFailureReason.contains("of 16x40000: needs 2."), decoder.lastFailureReason)
            XCTAssertEqual(try decoder.decode(file, options: fit, limits: small).height, 16, "fitted, nothing is cut")
        }
    }

    // MARK: JPEG: coefficients and scans (items 10 and 14)

    func testProgressiveJPEGWhoseCoefficientsExceedTheLimitIsRefusedSayingWhy() {
        let crafted = settingJPEGFrameSize(makeJPEG(width: 16, height: 16, progressive: true), width: 7000, height: 7000)
        XCTAssertEqual(refusal(crafted), "progressive JPEG of 7000x7000: needs 281.7 MiB to decode "
                       + "(280.4 MiB of it coefficients), over the 64 MiB a decode may hold")
        // 4:2:0 keeps half as much: 140.6 MiB for the same frame.
        let subsampled = settingJPEGFrameSize(makeJPEG(width: 16, height: 16, quality: 80, progressive: true),
                                              width: 7000, height: 7000)
        XCTAssertTrue(refusal(subsampled).contains("(140.6 MiB of it coefficients)"), refusal(subsampled))
    }

    func testSequentialJPEGWithAScanPerComponentKeepsEveryCoefficientToo() {
        // The first scan names one component of three: libjpeg then buffers the
        // whole image's coefficients, as for a progressive file.
        let baseline = makeJPEG(width: 256, height: 256)
        guard let sos = baseline.indices.dropLast().first(where: { baseline[$0] == 0xFF && baseline[$0 + 1] == 0xDA })
        else { return XCTFail("no SOS") }
        // FF DA, length 8, one component (id 1, tables 0/0), Ss 0, Se 63, Ah/Al 0.
        let oneComponentScan = Array(baseline[..<sos]) + [0xFF, 0xDA, 0, 8, 1, 1, 0x00, 0, 63, 0]
            + Array(baseline[(sos + 2 + 12)...])
        let small = DecodeLimits(maxWorkingBytes: 300_000)
        XCTAssertTrue(refusal(oneComponentScan, limits: small).hasPrefix("multi-scan JPEG of 256x256: needs"))
        XCTAssertNoThrow(try ImageDecoder().decode(baseline, target: .original, limits: small),
                         "an interleaved scan decodes a row of blocks at a time")
    }

    func testScansThatWalkTheFrameTooOftenAreRefused() throws {
        // 442 valid scans (every AC coefficient in 7 bit planes), each a few bytes
        // walking all 65,536 blocks: 3.2 s of CPU at 500 scans before.
        let scans = makeManyScanJPEG(width: 2048, height: 2048)
        XCTAssertLessThan(scans.count, 20_000)
        XCTAssertEqual(refusal(scans), "progressive JPEG whose 442 scans walk 28966912 blocks, "
                       + "over the 1048576 its 2048x2048 frame allows")
        // On a small frame the same scans are cheap, and decode.
        let image = try ImageDecoder().decode(makeManyScanJPEG(width: 64, height: 64), target: .original, limits: limits)
        XCTAssertEqual(Array(image.row(10)[0..<4]), [128, 128, 128, 255])
    }

    func testJPEGWith65500ScansIsRefusedBeforeDecoding() {
        let scans = makeManyScanJPEG(width: 8, height: 8, repeats: 65_499)
        XCTAssertEqual(refusal(scans), "JPEG with 65500 scans (at most 500 are decoded)")
    }

    func testFrameHeaderBehindJunkBytesIsStillCounted() {
        // libjpeg skips junk between segments to the next marker (with a warning), so
        // the cost is read past it too.
        let crafted = settingJPEGFrameSize(makeJPEG(width: 16, height: 16, progressive: true), width: 7000, height: 7000)
        guard let dqt = crafted.indices.dropLast().first(where: { crafted[$0] == 0xFF && crafted[$0 + 1] == 0xDB })
        else { return XCTFail("no DQT") }
        let junk = Array(crafted[..<dqt]) + [0x12, 0x34, 0xFF, 0x00, 0x56] + Array(crafted[dqt...])
        XCTAssertTrue(refusal(junk).hasPrefix("progressive JPEG of 7000x7000"))
    }

    // MARK: PNG: chunks (item 14, held bombs)

    func testAncillaryChunksOver4MiBAreSkipped() throws {
        let png = makePNG(width: 32, height: 32, pattern: .solid(red: 9, green: 99, blue: 199))
        // An ICC profile inflating to 5 MiB, and a 5 MiB EXIF block: both refused as
        // corrupt before (libspng's 4 MiB chunk limit).
        let iccp = Array("big profile".utf8) + [0, 0] + zlibBomb(inflatingTo: 5 << 20)
        let exif = Array("MM".utf8) + [0, 42, 0, 0, 0, 8] + [UInt8](repeating: 0, count: 5 << 20)
        for (type, data) in [("iCCP", iccp), ("eXIf", exif)] {
            let image = try ImageDecoder().decode(insertingPNGChunk(type, data, into: png), target: .original,
                                                  limits: limits)
            XCTAssertEqual([image.width, image.height], [32, 32], type)
            XCTAssertEqual(Array(image.row(5)[0..<4]), [9, 99, 199, 255], type)
        }
    }

    func testZlibBombsInICCPAndZTXtAreNeverInflated() throws {
        let png = makePNG(width: 16, height: 16)
        let bomb = zlibBomb(inflatingTo: 64 << 20)
        XCTAssertLessThan(bomb.count, 512 << 10)
        for (type, data) in [("iCCP", Array("p".utf8) + [0, 0] + bomb), ("zTXt", Array("Comment".utf8) + [0, 0] + bomb)] {
            let measured = try ProcessResources.measurePeakGrowth {
                try ImageDecoder().decode(insertingPNGChunk(type, data, into: png), target: .original, limits: limits)
            }
            XCTAssertEqual(measured.result.width, 16, type)
            #if !LAZYIMG_ASAN_SUBSET  // AddressSanitizer's quarantine and shadow memory count too
            if let growth = measured.growth, !ProcessResources.underThreadSanitizer {
                XCTAssertLessThan(growth, 4 << 20, "\(type): the 64 MiB were inflated")
            }
            #endif
        }
    }

    func testChunksDeclaringGigabytesAreRefused() {
        let png = makePNG(width: 8, height: 8)
        for (type, length) in [("IDAT", UInt32(3) << 30), ("tEXt", UInt32.max), ("tEXt", UInt32(Int32.max)),
                               ("iCCP", UInt32(2) << 30), ("IDAT", UInt32(Int32.max))] {
            DecodingTestHelpers.assertDecodeThrows(.decode, insertingPNGChunkHeader(type, declaring: length, into: png),
                                                   "\(type) of \(length) bytes")
        }
    }

    func testPNGRowsWiderThanTheLimitAreRefusedSayingWhy() {
        // 48 bytes a pixel of row buffers: a 1 x 2,000,000 header asks for 91.6 MiB.
        var png = makePNG(width: 8, height: 8)
        png.replaceSubrange(16..<20, with: [0x00, 0x1E, 0x84, 0x80])  // width 2,000,000
        png.replaceSubrange(20..<24, with: [0, 0, 0, 1])
        let crc = pngCRC(png[12..<29])
        png.replaceSubrange(29..<33, with: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: crc >> $0) })
        XCTAssertEqual(refusal(png), "PNG of 2000000x1: needs 91.6 MiB to decode, over the 64 MiB a decode may hold")
    }

    // MARK: GIF (held bombs)

    func testGIFWithTenThousandFramesDecodesItsFirstOnly() throws {
        let frames = (0..<10_000).map { index in
            GIFTestFrame(width: 4, height: 4, indices: [UInt8](repeating: UInt8(index % 2), count: 16))
        }
        let gif = makeGIF(screenWidth: 4, screenHeight: 4, palette: [[250, 0, 0], [0, 0, 250]], frames: frames)
        let image = try ImageDecoder().decode(gif, target: .original, limits: limits)
        XCTAssertTrue(image.isAnimated)
        XCTAssertEqual(Array(image.row(0)[0..<4]), [250, 0, 0, 255], "frame 1")
    }

    func testInterlacedGIFFrameOverTheLimitIsRefused() {
        let gif = makeGIF(screenWidth: 600, screenHeight: 600, palette: [[1, 2, 3]],
                          frames: [GIFTestFrame(width: 600, height: 600, indices: [UInt8](repeating: 0, count: 360_000),
                                                interlaced: true)])
        XCTAssertTrue(refusal(gif, limits: DecodeLimits(maxWorkingBytes: 300_000)).hasPrefix("GIF of 600x600: needs"))
    }

    // MARK: WebP animations (item 9)

    func testAnimatedWebPFrameIsDrawnAtItsOffsetOnATransparentCanvas() throws {
        let red = makeWebP(width: 20, height: 10, pattern: .solid(red: 255, green: 0, blue: 0))
        let webp = makeAnimatedWebP(canvasWidth: 40, canvasHeight: 40, frames: [
            WebPTestFrame(left: 10, top: 20, width: 20, height: 10, webp: red),
            WebPTestFrame(left: 0, top: 0, width: 20, height: 10, webp: red),
        ])
        let image = try ImageDecoder().decode(webp, target: .original, limits: limits)
        XCTAssertEqual([image.width, image.height], [40, 40])
        XCTAssertTrue(image.isAnimated)
        XCTAssertEqual(Array(image.row(25)[(15 * 4)..<(16 * 4)]), [255, 0, 0, 255], "inside the frame")
        XCTAssertEqual(Array(image.row(25)[(5 * 4)..<(6 * 4)]), [0, 0, 0, 0], "left of it")
        XCTAssertEqual(Array(image.row(5)[(15 * 4)..<(16 * 4)]), [0, 0, 0, 0], "above it: frame 2 is not drawn")
        let thumb = try ImageDecoder().decode(webp, target: TargetSize(width: 4, height: 4), limits: limits)
        XCTAssertEqual(Array(thumb.row(2)[(1 * 4)..<(2 * 4)]), [255, 0, 0, 255], "the frame's 10 x 10 cell")
        XCTAssertEqual(thumb.row(0)[3], 0)
    }

    func testAnimatedWebPFrameOutsideItsCanvasIsCorrupt() {
        let frame = makeWebP(width: 8, height: 8)
        let outside = makeAnimatedWebP(canvasWidth: 10, canvasHeight: 10,
                                       frames: [WebPTestFrame(left: 4, top: 0, width: 8, height: 8, webp: frame)])
        DecodingTestHelpers.assertDecodeThrows(.decode, outside)
        let mismatched = makeAnimatedWebP(canvasWidth: 10, canvasHeight: 10,
                                          frames: [WebPTestFrame(left: 0, top: 0, width: 6, height: 6, webp: frame)])
        DecodingTestHelpers.assertDecodeThrows(.decode, mismatched, "the bitstream is 8 x 8, the frame header 6 x 6")
    }

    func testWebPThatNeedsMoreThanTheLimitIsRefusedSayingWhy() {
        let webp = makeSolidLosslessWebP(width: 5000, height: 5000, rgba: [1, 2, 3, 4])
        XCTAssertEqual(refusal(webp), "lossless WebP of 5000x5000: needs 96.2 MiB to decode, "
                       + "over the 64 MiB a decode may hold")
    }
}
#endif
