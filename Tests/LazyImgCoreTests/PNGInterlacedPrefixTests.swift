#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_5 // ThreadSanitizer group 5 (see the Makefile's tsan)
import LazyImgCore
import TestSupport
import XCTest

/// `PNGInterlacedPrefix` on starts of real interlaced PNGs (libspng-encoded here, and
/// PngSuite's), checked against the whole file's full decode.
final class PNGInterlacedPrefixTests: XCTestCase {
    private let limits = DecodeLimits()

    /// Pass 1 at its own size: every 8th pixel of every 8th row of the full decode.
    private func firstPassOfFullDecode(_ bytes: [UInt8]) throws -> (width: Int, height: Int, pixels: [UInt8]) {
        let full = try PNGDecoder().decode(bytes, options: DecodeOptions(), limits: limits)
        let width = (full.width + 7) / 8, height = (full.height + 7) / 8
        var pixels: [UInt8] = []
        for y in 0..<height {
            let row = full.row(8 * y)
            for x in 0..<width { pixels += row[(32 * x)..<(32 * x + 4)] }
        }
        return (width, height, pixels)
    }

    private func pixels(_ image: DecodedImage) -> [UInt8] {
        (0..<image.height).flatMap { Array(image.row($0)) }
    }

    private func atFirstPassSize(_ width: Int, _ height: Int) -> DecodeOptions {
        DecodeOptions(target: TargetSize(width: (width + 7) / 8, height: (height + 7) / 8))
    }

    func testEveryStartSaysHowManyPassesItHolds() throws {
        let png = makeNoisePNGInterlaced(width: 97, height: 61)
        var passesBefore = 0
        var firstPassEnd: Int?
        for count in stride(from: 0, through: png.count, by: 37) + [png.count] {
            let start = Array(png[..<count])
            guard let progress = try PNGInterlacedPrefix.examine(start, throughPass: 7) else {
                XCTAssertLessThan(count, 33, "the IHDR is all there from byte 33")
                continue
            }
            XCTAssertEqual([progress.width, progress.height], [97, 61])
            XCTAssertTrue(progress.isInterlaced)
            XCTAssertGreaterThanOrEqual(progress.completePasses, passesBefore, "at \(count) bytes")
            passesBefore = progress.completePasses
            if let end = progress.firstPassEnd {
                XCTAssertLessThanOrEqual(end, count)
                if firstPassEnd == nil { firstPassEnd = end }
            } else {
                XCTAssertLessThan(progress.firstPassRows, progress.firstPassRowCount)
            }
        }
        XCTAssertEqual(passesBefore, 7, "the whole file holds every pass")
        let end = try XCTUnwrap(firstPassEnd)
        XCTAssertLessThan(end, png.count / 4, "pass 1 is a small part of the file")
        // The bytes up to where pass 1 ended hold it.
        XCTAssertEqual(try PNGInterlacedPrefix.examine(Array(png[..<end]))?.completePasses, 1)
    }

    func testTheWholeFileSaysWhereEachPassEnded() throws {
        let png = makeNoisePNGInterlaced(width: 400, height: 300)
        let ends = try XCTUnwrap(PNGInterlacedPrefix.examine(png, throughPass: 7)?.passEnds)
        XCTAssertEqual(ends.count, 7)
        XCTAssertEqual(ends, ends.sorted())
        for (passes, end) in zip(1...7, ends) {
            // The bytes up to where a pass ended hold it, and fewer by a piece do not.
            XCTAssertEqual(try PNGInterlacedPrefix.examine(Array(png[..<end]), throughPass: 7)?.completePasses, passes)
            XCTAssertLessThan(try XCTUnwrap(PNGInterlacedPrefix.examine(Array(png[..<(end - 512)]), throughPass: 7))
                .completePasses, passes, "pass \(passes)")
        }
    }

    func testFirstPassOfAStartIsTheFullDecodesEveryEighthPixel() throws {
        for colorType in [PNGColorType.rgb, .rgba, .gray, .grayAlpha] {
            for bitDepth in [8, 16] {
                let png = makePNG(width: 75, height: 43, colorType: colorType, bitDepth: bitDepth, interlaced: true)
                let end = try XCTUnwrap(PNGInterlacedPrefix.examine(png)?.firstPassEnd, "\(colorType) \(bitDepth)")
                let image = try PNGInterlacedPrefix.decodeFirstPass(Array(png[..<end]), options: atFirstPassSize(75, 43))
                let expected = try firstPassOfFullDecode(png)
                XCTAssertEqual([image.width, image.height], [expected.width, expected.height])
                XCTAssertEqual([image.sourceWidth, image.sourceHeight], [75, 43])
                XCTAssertEqual(pixels(image), expected.pixels, "\(colorType) \(bitDepth)")
            }
        }
    }

    func testFirstPassIsResampledIntoASmallerBox() throws {
        let png = makeNoisePNGInterlaced(width: 768, height: 512)
        let end = try XCTUnwrap(PNGInterlacedPrefix.examine(png)?.firstPassEnd)
        let image = try PNGInterlacedPrefix.decodeFirstPass(Array(png[..<end]),
                                                             options: DecodeOptions(target: TargetSize(width: 64, height: 64)))
        XCTAssertEqual([image.width, image.height], [64, 43])
    }

    func testABoxPassOneDoesNotCoverIsRefused() throws {
        let png = makeNoisePNGInterlaced(width: 160, height: 160)
        XCTAssertThrowsError(try PNGInterlacedPrefix.decodeFirstPass(png, options: DecodeOptions(target: TargetSize(width: 64, height: 64)))) {
            XCTAssertEqual($0 as? LoaderError, .decode)
        }
    }

    func testAStartShortOfPassOneIsRefused() throws {
        let png = makeNoisePNGInterlaced(width: 200, height: 200)
        let end = try XCTUnwrap(PNGInterlacedPrefix.examine(png)?.firstPassEnd)
        let short = Array(png[..<(end - PNGInterlacedPrefixTests.shortBy)])
        let progress = try XCTUnwrap(PNGInterlacedPrefix.examine(short))
        XCTAssertEqual(progress.completePasses, 0)
        XCTAssertNil(progress.firstPassEnd)
        XCTAssertGreaterThan(progress.firstPassRows, 0, "the rows the bytes hold decode")
        XCTAssertThrowsError(try PNGInterlacedPrefix.decodeFirstPass(short, options: atFirstPassSize(200, 200)))
    }

    /// More than the filter's pieces, so a row at least is missing.
    private static let shortBy = 1200

    func testPreviewOfEveryPassIsTheFullImage() throws {
        let png = makeNoisePNGInterlaced(width: 45, height: 30)
        let preview = try PNGInterlacedPrefix.preview(png, options: DecodeOptions())
        let full = try PNGDecoder().decode(png, options: DecodeOptions(), limits: limits)
        XCTAssertEqual(preview.passes, 7)
        XCTAssertEqual(pixels(preview.image), pixels(full))
    }

    func testPreviewOfPassOneFillsEightByEightBlocks() throws {
        // Large enough that pass 1 ends pieces before pass 3 does.
        let png = makeNoisePNGInterlaced(width: 180, height: 100)
        let end = try XCTUnwrap(PNGInterlacedPrefix.examine(png)?.firstPassEnd)
        let preview = try PNGInterlacedPrefix.preview(Array(png[..<end]), options: DecodeOptions())
        let full = try PNGDecoder().decode(png, options: DecodeOptions(), limits: limits)
        XCTAssertEqual(preview.passes, 1)
        XCTAssertEqual([preview.image.width, preview.image.height], [180, 100])
        for y in 0..<100 {
            for x in 0..<180 {
                let known = full.row(y / 8 * 8)[(x / 8 * 32)..<(x / 8 * 32 + 4)]
                XCTAssertEqual(Array(preview.image.row(y)[(4 * x)..<(4 * x + 4)]), Array(known), "(\(x), \(y))")
            }
        }
    }

    /// A start cut halfway into a pass shows the passes before it, each known pixel
    /// filling its block, and nothing of the pass that came in part: the full
    /// decode's pixel at each block's top-left.
    func testPreviewShowsTheCompletePassesAndNoneOfThePassThatCameInPart() throws {
        let png = makeNoisePNGInterlaced(width: 101, height: 67)
        let full = try PNGDecoder().decode(png, options: DecodeOptions(), limits: limits)
        let blocks = [(8, 8), (4, 8), (4, 4), (2, 4), (2, 2), (1, 2)]
        for (passes, block) in zip(1...6, blocks) {
            let end = fewestBytes(holdingPasses: passes, of: png)
            let next = fewestBytes(holdingPasses: passes + 1, of: png)
            let start = Array(png[..<((end + next) / 2)])
            XCTAssertEqual(try PNGInterlacedPrefix.examine(start, throughPass: 7)?.completePasses, passes)
            let preview = try PNGInterlacedPrefix.preview(start, options: DecodeOptions())
            XCTAssertEqual(preview.passes, passes)
            var expected: [UInt8] = []
            for y in 0..<67 {
                let row = full.row(y - y % block.1)
                for x in 0..<101 { expected += row[(4 * (x - x % block.0))..<(4 * (x - x % block.0) + 4)] }
            }
            XCTAssertEqual(pixels(preview.image), expected, "\(passes) passes")
        }
    }

    func testAPreviewNeedsPassOne() throws {
        let png = makeNoisePNGInterlaced(width: 180, height: 100)
        let short = Array(png[..<(fewestBytes(holdingPasses: 1, of: png) - 1)])
        XCTAssertThrowsError(try PNGInterlacedPrefix.preview(short, options: DecodeOptions())) {
            XCTAssertEqual($0 as? LoaderError, .decode)
        }
        XCTAssertThrowsError(try PNGInterlacedPrefix.preview(makePNG(width: 40, height: 40), options: DecodeOptions()),
                             "not interlaced")
    }

    func testANonInterlacedPNGHasNoPasses() throws {
        let png = makePNG(width: 40, height: 40)
        let progress = try XCTUnwrap(PNGInterlacedPrefix.examine(png))
        XCTAssertFalse(progress.isInterlaced)
        XCTAssertEqual(progress.completePasses, 0)
        XCTAssertThrowsError(try PNGInterlacedPrefix.decodeFirstPass(png, options: atFirstPassSize(40, 40)))
    }

    func testHostileStartsGetAClearError() throws {
        let png = makeNoisePNGInterlaced(width: 64, height: 64)
        XCTAssertThrowsError(try PNGInterlacedPrefix.examine(Array("GIF89a".utf8))) {
            XCTAssertEqual($0 as? LoaderError, .unsupported)
        }
        XCTAssertNil(try PNGInterlacedPrefix.examine(Array(png[..<20])), "no IHDR yet")
        // IHDRs that lie: sizes past the pixel budget, and a width whose rows alone
        // are past the working memory.
        for (width, height) in [(1 << 30, 1 << 30), (0x7FFF_FFFF, 1), (40_000_000, 1)] {
            let huge = withPNGSize(png, width: width, height: height)
            XCTAssertThrowsError(try PNGInterlacedPrefix.examine(huge), "\(width)x\(height)") {
                XCTAssertEqual($0 as? LoaderError, .tooLarge, "\(width)x\(height)")
            }
            XCTAssertThrowsError(try PNGInterlacedPrefix.decodeFirstPass(huge, options: atFirstPassSize(64, 64)))
        }
        XCTAssertThrowsError(try PNGInterlacedPrefix.examine(withPNGSize(png, width: 0, height: 64)))
        // Image data that is no zlib stream, with CRCs that match: damage, not a short start.
        let idat = try XCTUnwrap(firstPNGChunk("IDAT", in: png))
        XCTAssertThrowsError(try PNGInterlacedPrefix.examine(withGarbledPNGImageData(png))) { XCTAssertEqual($0 as? LoaderError, .decode) }
        // A bad CRC on a chunk that came whole.
        var badCRC = png
        let length = (0..<4).reduce(0) { $0 << 8 | Int(png[idat + $1]) }
        badCRC[idat + 8 + length] ^= 0xFF
        XCTAssertThrowsError(try PNGInterlacedPrefix.examine(badCRC)) { XCTAssertEqual($0 as? LoaderError, .decode) }
        // A zlib stream cut anywhere is a short start, never a trap.
        for count in stride(from: idat, to: png.count, by: 7) {
            _ = try PNGInterlacedPrefix.examine(Array(png[..<count]), throughPass: 7)
        }
    }

    func testPngSuiteInterlacedFilesGiveTheFullDecodesFirstPass() throws {
        let root = try DecodingTestHelpers.corpus("pngsuite")
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).filter {
            $0.hasSuffix(".png") && $0.contains("i")
        }.sorted()
        var compared = 0
        for name in names {
            let png = try DecodingTestHelpers.read(root + "/" + name)
            guard let progress = try PNGInterlacedPrefix.examine(png), progress.isInterlaced else { continue }
            let end = try XCTUnwrap(progress.firstPassEnd, name)
            let image = try PNGInterlacedPrefix.decodeFirstPass(Array(png[..<end]),
                                                                 options: atFirstPassSize(progress.width, progress.height))
            XCTAssertEqual(pixels(image), try firstPassOfFullDecode(png).pixels, name)
            compared += 1
        }
        XCTAssertGreaterThanOrEqual(compared, 15, "PngSuite's basi*/s*i* files")
        print("pngsuite: \(compared) interlaced files' first passes compared")
    }

    private func makeNoisePNGInterlaced(width: Int, height: Int) -> [UInt8] {
        makeNoisePNG(width: width, height: height, seed: 7, interlaced: true)
    }
}
#endif
