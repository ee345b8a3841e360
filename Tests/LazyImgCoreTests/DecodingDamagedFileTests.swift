#if !LAZYIMG_SUBSET || LAZYIMG_ASAN_SUBSET || LAZYIMG_TSAN_SUBSET_5 // the AddressSanitizer subset, and ThreadSanitizer group 5
@testable import LazyImgCore
import TestSupport
import XCTest

/// Damaged files shown as browsers show them (issue 20, section 5): JPEGs libjpeg
/// decodes with warnings, baseline JPEGs cut short, PNGs with a bad CRC in a chunk
/// the pixels do not need. Each gives an image that says it is damaged; damage that
/// stops libjpeg, or hits a critical PNG chunk, is still refused.
final class DecodingDamagedFileTests: XCTestCase {
    private let limits = DecodeLimits()
    /// 1-pixel squares (TestPattern.fineChecker, not used: LeakSanitizer, in make
    /// sanitize, reports the lazily made static that holds it).
    private var checker: TestPattern { .checkerboard(cell: 1, first: [0, 0, 0, 255], second: [255, 255, 255, 255]) }

    private func decode(_ bytes: [UInt8], _ target: TargetSize = .original) throws -> DecodedImage {
        try ImageDecoder().decode(bytes, target: target, limits: limits)
    }

    /// Where the first scan's header starts, walking the segments by their lengths
    /// (an EXIF thumbnail holds markers of its own).
    private func scanStart(_ jpeg: [UInt8]) -> Int? {
        var offset = 2
        while offset + 4 <= jpeg.count, jpeg[offset] == 0xFF {
            if jpeg[offset + 1] == 0xDA { return offset }
            offset += 2 + (Int(jpeg[offset + 2]) << 8 | Int(jpeg[offset + 3]))
        }
        return nil
    }

    // MARK: JPEG

    func testCorpusJPEGsThatLibjpegOnlyWarnsAboutAreShownAsDamaged() throws {
        // The files issue 20 names: extraneous bytes, motion JPEG without its Huffman
        // tables, a partial progression, junk in the header, overflowing DC predictors,
        // cut-off files. Sizes from the corpus READMEs (Pillow's).
        let files: [(String, [Int])] = [
            ("jpeg/jpeg-decoder/extraneous-data.jpg", [16, 16]),
            ("jpeg/jpeg-decoder/mjpeg.jpg", [960, 720]),
            ("jpeg/jpeg-decoder/partial_progressive.jpg", [4, 4]),
            ("bad/jpeg/jpeg-decoder-crashtest/extraneous-bytes-after-sos.jpg", [1744, 2464]),
            ("bad/jpeg/jpeg-decoder-crashtest/dc-predictor-overflow.jpg", [144, 144]),
            ("bad/jpeg/pillow/junk_jpeg_header.jpg", [1024, 768]),
            ("bad/jpeg/pillow/jpeg_ff00_header.jpg", [300, 225]),
            ("bad/jpeg/pillow/truncated_app14.jpg", [100, 100]),
            ("bad/jpeg/wuffs/peacock.default.truncated.jpeg", [100, 75]),
            ("bad/jpeg/wuffs/peacock.progressive.truncated.jpeg", [100, 75]),
        ]
        let root = try DecodingTestHelpers.corpus("")
        for (path, size) in files {
            let image = try decode(try DecodingTestHelpers.read(root + path), TargetSize(width: 64, height: 64))
            XCTAssertEqual([image.sourceWidth, image.sourceHeight], size, path)
            XCTAssertTrue(image.isDamaged, path)
        }
        XCTAssertFalse(try decode(makeJPEG(width: 32, height: 32)).isDamaged, "an intact file")
    }

    func testTruncatedBaselineJPEGShowsTheRowsItHasAndNothingBelow() throws {
        let jpeg = makeJPEG(width: 64, height: 128, pattern: checker)
        guard let sos = scanStart(jpeg) else { return XCTFail("no SOS") }
        // Half of the scan's data.
        let half = Array(jpeg.prefix(sos + (jpeg.count - sos) / 2))
        let whole = try decode(jpeg)
        let cut = try decode(half)
        XCTAssertTrue(cut.isDamaged)
        XCTAssertFalse(whole.isDamaged)
        XCTAssertEqual([cut.width, cut.height], [64, 128])
        XCTAssertEqual(Array(cut.row(4)), Array(whole.row(4)), "a row it has")
        XCTAssertEqual(Array(cut.row(127)), [UInt8](repeating: 0, count: 64 * 4), "a row it never had: transparent")
        // Shrunk, the transparent part averages in as transparency.
        let thumb = try decode(half, TargetSize(width: 8, height: 16))
        XCTAssertEqual(thumb.row(0)[3], 255)
        XCTAssertEqual(thumb.row(15)[3], 0)
    }

    func testCutShortWithRestartMarkersKeepsWholeRowsOfMCUs() throws {
        // pil_sample_rgb.jpg: 100 x 100, 4:4:4 (8-row MCUs), a restart marker every 7
        // MCUs. Cut at 60% of its scan, decoded at full size and at 3/4 (the DCT
        // scale that covers a 64 px box: 6-row MCUs).
        let jpeg = try DecodingTestHelpers.read(try DecodingTestHelpers.corpus("jpeg/pillow") + "/pil_sample_rgb.jpg")
        guard let sos = scanStart(jpeg) else { return XCTFail("no SOS") }
        let cut = Array(jpeg.prefix(sos + (jpeg.count - sos) * 6 / 10))
        for (target, mcuRows) in [(TargetSize.original, 8), (TargetSize(width: 75, height: 75), 6)] {
            let whole = try decode(jpeg, target), damaged = try decode(cut, target)
            XCTAssertTrue(damaged.isDamaged)
            let transparent = [UInt8](repeating: 0, count: damaged.width * 4)
            let firstMissing = try XCTUnwrap((0..<damaged.height).first { Array(damaged.row($0)) == transparent })
            XCTAssertEqual(firstMissing % mcuRows, 0, "whole rows of MCUs (\(target))")
            XCTAssertGreaterThan(firstMissing, damaged.height / 4, "\(target)")
            XCTAssertLessThan(firstMissing, damaged.height, "\(target)")
            XCTAssertTrue((firstMissing..<damaged.height).allSatisfy { Array(damaged.row($0)) == transparent })
            // Above the last MCU row (whose chroma upsampling reaches below it) the
            // rows are the whole file's.
            for row in 0..<(firstMissing - mcuRows) {
                XCTAssertEqual(Array(damaged.row(row)), Array(whole.row(row)), "row \(row), \(target)")
            }
        }
    }

    func testJPEGMissingOnlyItsEndMarkerIsWhole() throws {
        let jpeg = makeJPEG(width: 64, height: 64, pattern: checker)
        let image = try decode(Array(jpeg.dropLast(2)))
        XCTAssertTrue(image.isDamaged, "libjpeg warns of the premature end")
        let whole = try decode(jpeg)  // held: row() points into its buffer
        XCTAssertEqual(Array(image.row(63)), Array(whole.row(63)), "every row is there")
    }

    func testAnErrorAfterAWarningIsStillAnError() throws {
        // Junk before DQT (a warning), then a scan naming Huffman table 3, which is
        // not defined (an error): TurboJPEG reports TJERR_WARNING for the pair, since
        // a warning came first; its message is the error's.
        let jpeg = makeJPEG(width: 32, height: 32)
        guard let dqt = jpeg.indices.dropLast().first(where: { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xDB }),
              let sos = jpeg.indices.dropLast().first(where: { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xDA })
        else { return XCTFail("no DQT or SOS") }
        var broken = jpeg
        broken[sos + 6] = 0x33  // first component's DC and AC tables
        broken.insert(contentsOf: [0x01, 0x02, 0x03], at: dqt)
        DecodingTestHelpers.assertDecodeThrows(.decode, broken)
    }

    // MARK: PNG

    func testPNGWithABadCRCInAnAncillaryChunkIsShownAsDamaged() throws {
        let png = makePNG(width: 8, height: 8, pattern: .solid(red: 1, green: 2, blue: 3))
        let text = Array("Comment".utf8) + [0] + Array("hello".utf8)
        let damaged = try decode(insertingPNGChunk("tEXt", text, into: png, damagedCRC: true))
        XCTAssertTrue(damaged.isDamaged)
        XCTAssertEqual(Array(damaged.row(3)[0..<4]), [1, 2, 3, 255])
        XCTAssertFalse(try decode(insertingPNGChunk("tEXt", text, into: png)).isDamaged)
        // An oversized ancillary chunk is skipped, but it is no damage.
        let exif = Array("MM".utf8) + [0, 42, 0, 0, 0, 8] + [UInt8](repeating: 0, count: 5 << 20)
        XCTAssertFalse(try decode(insertingPNGChunk("eXIf", exif, into: png)).isDamaged)
    }

    func testPNGWithADamagedTransparencyChunkIsOpaqueAndDamaged() throws {
        // Grey 8-bit with tRNS making grey 0x80 transparent.
        let png = makePNG(width: 4, height: 4, colorType: .gray, pattern: .solid(red: 0x80, green: 0, blue: 0))
        let intact = try decode(insertingPNGChunk("tRNS", [0, 0x80], into: png))
        XCTAssertEqual(intact.row(0)[3], 0)
        let damaged = try decode(insertingPNGChunk("tRNS", [0, 0x80], into: png, damagedCRC: true))
        XCTAssertTrue(damaged.isDamaged)
        XCTAssertEqual(Array(damaged.row(0)[0..<4]), [0x80, 0x80, 0x80, 255], "dropped, as libpng drops it")
    }

    func testCriticalPNGDamageIsStillRefused() throws {
        var png = makePNG(width: 8, height: 8)
        // The IDAT's CRC: the 4 bytes before IEND's 12.
        png[png.count - 13] ^= 0xFF
        DecodingTestHelpers.assertDecodeThrows(.decode, png)
        let root = try DecodingTestHelpers.corpus("png-corrupt")
        let corrupt = try FileManager.default.contentsOfDirectory(atPath: root).filter { $0.hasSuffix(".png") }
        XCTAssertEqual(corrupt.count, 14)
        for name in corrupt {
            // Some are refused as not PNG at all (a damaged signature).
            XCTAssertThrowsError(try decode(try DecodingTestHelpers.read(root + "/" + name)), name)
        }
    }

    // MARK: Kept as they are

    func testTheDiskThumbnailKeepsTheDamage() throws {
        let image = try decode(Array(makeJPEG(width: 16, height: 16).dropLast(2)))
        XCTAssertTrue(image.isDamaged)
        XCTAssertEqual(DiskCacheThumbnail.decode(DiskCacheThumbnail.encode(image))?.isDamaged, true)
        let intact = try decode(makeJPEG(width: 16, height: 16))
        XCTAssertEqual(DiskCacheThumbnail.decode(DiskCacheThumbnail.encode(intact))?.isDamaged, false)
    }
}
#endif
