#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_5 // ThreadSanitizer group 5 (see the Makefile's tsan)
#if LAZYIMG_AVIF
@_spi(Testing) import LazyImgCore
import TestSupport
import XCTest

/// AVIF through libavif and dav1d, on files libavif's aom encoder makes here.
final class DecodingAVIFTests: XCTestCase {
    private let limits = DecodeLimits()
    private static let red: [UInt8] = [255, 0, 0, 255], green: [UInt8] = [0, 255, 0, 255]
    private static let blue: [UInt8] = [0, 0, 255, 255], white: [UInt8] = [255, 255, 255, 255]
    private static let quadrants = TestPattern.grid(columns: 2, rows: 2, colours: [red, green, blue, white])

    func testLosslessDecodesExactlyAndShrinksToTheBox() throws {
        let avif = makeAVIF(width: 120, height: 60, pattern: .solid(red: 200, green: 100, blue: 50))
        XCTAssertEqual(ImageFormat(sniffing: avif), .avif)
        try DecodingTestHelpers.assertSolidColourShrinksToTheBox(avif, tolerance: 0)
    }

    func testFillCropsTheMiddleThird() throws {
        let colours: [[UInt8]] = [Self.red, Self.green, Self.blue]
        let avif = makeAVIF(width: 90, height: 30, pattern: .grid(columns: 3, rows: 1, colours: colours))
        let image = try ImageDecoder().decode(avif, options: DecodeOptions(target: TargetSize(width: 10, height: 10),
                                                                           fit: .fill), limits: limits)
        XCTAssertEqual([image.width, image.height], [10, 10])
        XCTAssertEqual(DecodingTestHelpers.maxDeviation(of: image, from: Self.green), 0)
    }

    func testAlphaComesOutStraightAndPremultiplied() throws {
        let avif = makeAVIF(width: 64, height: 32, pattern: .solid(red: 200, green: 100, blue: 50, alpha: 128))
        try DecodingTestHelpers.assertHalfTransparentInBothFormats(avif, tolerance: 0)
    }

    func testTenAndTwelveBitSamplesScaleToEightBits() throws {
        // Mid grey is where reading 16-bit samples wrongly (their low byte, or a plain
        // shift of the wrong width) shows; full scale must stay full scale.
        for depth in [10, 12] {
            let avif = makeAVIF(width: 48, height: 48, pattern: .checkerboard(cell: 24, first: [128, 128, 128, 255],
                                                                                second: [255, 0, 64, 100]),
                                options: AVIFTestOptions(depth: depth))
            XCTAssertFalse(avif.isEmpty, "\(depth)-bit")
            let image = try ImageDecoder().decode(avif, target: .original, limits: limits)
            XCTAssertEqual(Array(image.row(12)[48..<52]), [128, 128, 128, 255], "\(depth)-bit grey")
            XCTAssertEqual(Array(image.row(12)[(4 * 36)..<(4 * 36 + 4)]), [255, 0, 64, 100], "\(depth)-bit colour")
        }
    }

    func testSubsampledChromaConvertsInBandsAsInOnePiece() throws {
        // 4:2:0 chroma is upsampled from neighbouring rows; each band of rows is
        // converted with rows of context, so no band edge may show.
        for depth in [8, 10] {
            let avif = makeAVIF(width: 70, height: 150, pattern: .gradient,
                                options: AVIFTestOptions(depth: depth, subsampled: true, lossless: false, quantizer: 20))
            let image = try ImageDecoder().decode(avif, target: .original, limits: limits)
            let whole = try XCTUnwrap(decodeWithLibavif(avif))
            let rows = (0..<150).flatMap { Array(image.row($0)) }
            XCTAssertEqual(rows, whole, "\(depth)-bit: differs from libavif's conversion in one piece")
        }
    }

    #if LAZYIMG_HEIF
    /// irot and imir for each EXIF orientation, as libavif's own Exif import maps them.
    private static let transforms: [Int: (rotation: Int?, mirror: Int?)] = [
        1: (nil, nil), 2: (nil, 1), 3: (2, nil), 4: (nil, 0), 5: (1, 0), 6: (3, nil), 7: (3, 0), 8: (1, nil),
    ]

    func testIrotAndImirShowTheImageAsLibheifDoes() throws {
        for orientation in 1...8 {
            let (rotation, mirror) = try XCTUnwrap(Self.transforms[orientation])
            let avif = makeAVIF(width: 64, height: 32, pattern: Self.quadrants,
                                options: AVIFTestOptions(rotation: rotation, mirror: mirror))
            let image = try ImageDecoder().decode(avif, target: .original, limits: limits)
            let upright = orientation >= 5 ? [32, 64] : [64, 32]
            XCTAssertEqual([image.width, image.height, image.sourceWidth, image.sourceHeight], upright + upright,
                           "orientation \(orientation)")
            let reference = try XCTUnwrap(decodeWithLibheif(avif))
            XCTAssertEqual([reference.width, reference.height], upright)
            XCTAssertEqual(Array(image.row(0)[0..<image.width * 4]), Array(reference.rgba[0..<image.width * 4]),
                           "orientation \(orientation): top row")
            XCTAssertEqual(Array(image.row(image.height - 1)[0..<image.width * 4]),
                           Array(reference.rgba[(image.height - 1) * image.width * 4..<image.height * image.width * 4]),
                           "orientation \(orientation): bottom row")
            // Turned, then shrunk and cropped to a box.
            let thumbnail = try ImageDecoder().decode(avif, options: DecodeOptions(target: TargetSize(width: 8, height: 8),
                                                                                   fit: .fill), limits: limits)
            XCTAssertEqual([thumbnail.width, thumbnail.height], [8, 8])
            let topLeft = (upright[1] / 4 * upright[0] + upright[0] / 4) * 4
            XCTAssertEqual(Array(thumbnail.row(1)[4..<8]), Array(reference.rgba[topLeft..<topLeft + 4]),
                           "orientation \(orientation): the thumbnail's top-left quadrant")
        }
    }
    #endif

    func testTheExifOrientationIsNotAppliedOnTopOfIrot() throws {
        // Exif says "turn a quarter clockwise"; irot says "a half turn". MIAF: irot governs.
        let exif = exifTIFF(orientation: 6)
        let avif = makeAVIF(width: 64, height: 32, pattern: Self.quadrants, options: AVIFTestOptions(rotation: 2, exif: exif))
        let image = try ImageDecoder().decode(avif, target: .original, limits: limits)
        XCTAssertEqual([image.width, image.height], [64, 32])
        XCTAssertEqual(Array(image.row(8)[(4 * 16)..<(4 * 16 + 4)]), Self.white, "a half turn puts white top-left")
        let exifOnly = makeAVIF(width: 64, height: 32, pattern: Self.quadrants, options: AVIFTestOptions(exif: exif))
        let shown = try ImageDecoder().decode(exifOnly, target: .original, limits: limits)
        XCTAssertEqual([shown.width, shown.height], [64, 32], "Exif alone turns nothing")
    }

    func testGridsDecodeEveryCell() throws {
        let colours: [[UInt8]] = [Self.red, Self.green, Self.blue, Self.white, [0, 0, 0, 255], [255, 255, 0, 255]]
        let avif = makeGridAVIF(columns: 3, rows: 2, cellWidth: 64, cellHeight: 64, colours: colours)
        XCTAssertFalse(avif.isEmpty)
        let image = try ImageDecoder().decode(avif, target: TargetSize(width: 96, height: 96), limits: limits)
        XCTAssertEqual([image.width, image.height, image.sourceWidth, image.sourceHeight], [96, 64, 192, 128])
        for (index, colour) in colours.enumerated() {
            let x = (index % 3) * 32 + 16, y = (index / 3) * 32 + 16
            XCTAssertEqual(Array(image.row(y)[(4 * x)..<(4 * x + 4)]), colour, "cell \(index)")
        }
    }

    func testASequenceShowsItsFirstFrameAndIsFlaggedAnimated() throws {
        let avif = makeAVIFSequence(width: 32, height: 16, frames: [.solid(red: 255, green: 0, blue: 0),
                                                                   .solid(red: 0, green: 0, blue: 255)])
        XCTAssertEqual(Array(avif[8..<12]), Array("avis".utf8))
        XCTAssertEqual(ImageFormat(sniffing: avif), .avif)
        let image = try ImageDecoder().decode(avif, target: .original, limits: limits)
        XCTAssertTrue(image.isAnimated)
        XCTAssertEqual(DecodingTestHelpers.maxDeviation(of: image, from: Self.red), 0)
        XCTAssertFalse(try ImageDecoder().decode(makeAVIF(width: 8, height: 8), target: .original, limits: limits).isAnimated)
    }

    func testMaxPixelsHoldsAtTheExactEdge() throws {
        DecodingTestHelpers.assertMaxPixelsEdge(makeAVIF(width: 40, height: 30), pixels: 1200)
        let grid = makeGridAVIF(columns: 2, rows: 1, cellWidth: 64, cellHeight: 64, colours: [Self.red, Self.blue])
        DecodingTestHelpers.assertMaxPixelsEdge(grid, pixels: 128 * 64)
    }

    func testHeadersThatClaimTooMuchAreRefusedBeforeDecoding() throws {
        let avif = makeAVIF(width: 40, height: 30)
        for (width, height) in [(100_000, 100_000), (8000, 6251), (7072, 7071)] {
            DecodingTestHelpers.assertDecodeThrows(.tooLarge, patchingSpatialExtents(of: avif, width: width, height: height),
                                                   "\(width)x\(height)")
        }
        // A grid of 16 x 17 cells: more than 256, each a dav1d decoder libavif keeps.
        var grid = makeGridAVIF(columns: 2, rows: 1, cellWidth: 64, cellHeight: 64, colours: [Self.red, Self.blue])
        let layout = try XCTUnwrap(gridLayoutOffset(in: grid))
        grid[layout] = 16
        grid[layout + 1] = 15
        DecodingTestHelpers.assertDecodeThrows(.tooLarge, grid)
    }

    func testCorruptAndTruncatedFilesAreDecodeErrors() {
        let avif = makeAVIF(width: 64, height: 64, pattern: .fineChecker, options: AVIFTestOptions(lossless: false))
        for keep in [avif.count / 2, avif.count - 3, 40, 200] {
            DecodingTestHelpers.assertDecodeThrows(.decode, Array(avif.prefix(keep)), "kept \(keep) of \(avif.count) bytes")
        }
        // The AV1 sequence header opens the coded bytes in mdat.
        var damaged = avif
        let mdat = isoBoxOffset("mdat", in: avif) ?? 0
        for index in mdat + 8..<mdat + 16 { damaged[index] ^= 0x5A }
        DecodingTestHelpers.assertDecodeThrows(.decode, damaged, "sequence header damaged")
        DecodingTestHelpers.assertDecodeThrows(.decode, Array(avif.prefix(32)) + [UInt8](repeating: 0xFF, count: 64))
    }

    /// Where the grid item's rows - 1 and columns - 1 bytes lie.
    private func gridLayoutOffset(in file: [UInt8]) -> Int? {
        file.withUnsafeBufferPointer { bytes -> Int? in
            guard let items = try? HEIFItems(parsing: bytes),
                  let grid = items.items.values.first(where: { $0.type == HEIFItems.fourCC("grid") }),
                  let extent = grid.extents.first
            else { return nil }
            return extent.lowerBound + 2
        }
    }

    /// `avif` with every ispe property saying `width` x `height`.
    private func patchingSpatialExtents(of avif: [UInt8], width: Int, height: Int) -> [UInt8] {
        var patched = avif
        var start = 0
        while let offset = isoBoxOffset("ispe", in: Array(patched[start...])).map({ $0 + start }) {
            patched.replaceSubrange(offset + 12..<offset + 20, with: bigEndian(width, bytes: 4) + bigEndian(height, bytes: 4))
            start = offset + 20
        }
        return patched
    }
}
#endif
#endif
