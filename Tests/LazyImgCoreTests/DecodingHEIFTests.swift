#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_5 // ThreadSanitizer group 5 (see the Makefile's tsan)
#if LAZYIMG_HEIF
@_spi(Testing) @testable import LazyImgCore
import TestSupport
import XCTest

/// HEIC through libde265, on files libheif's x265 encoder makes here (and grids built
/// from them); pixels are checked against libheif's own decode.
final class DecodingHEIFTests: XCTestCase {
    private let limits = DecodeLimits()
    private static let red: [UInt8] = [255, 0, 0, 255], green: [UInt8] = [0, 255, 0, 255]
    private static let blue: [UInt8] = [0, 0, 255, 255], white: [UInt8] = [255, 255, 255, 255]
    private static let quadrants = TestPattern.grid(columns: 2, rows: 2, colours: [red, green, blue, white])

    override func setUpWithError() throws {
        try XCTSkipUnless(canEncodeHEIC, "this libheif has no HEVC encoder to make test files with")
    }

    func testDecodesAndShrinksToTheBox() throws {
        let heic = makeHEIC(width: 120, height: 60, pattern: .solid(red: 200, green: 100, blue: 50))
        XCTAssertEqual(ImageFormat(sniffing: heic), .heif)
        try DecodingTestHelpers.assertSolidColourShrinksToTheBox(heic, tolerance: 3)
    }

    func testAlphaComesOutStraightAndPremultiplied() throws {
        let heic = makeHEIC(width: 64, height: 32, pattern: .solid(red: 200, green: 100, blue: 50, alpha: 128))
        try DecodingTestHelpers.assertHalfTransparentInBothFormats(heic, tolerance: 3)
    }

    func testTenAndTwelveBitSamplesScaleToEightBits() throws {
        for depth in [10, 12] {
            let heic = makeHEIC(width: 64, height: 64,
                                pattern: .checkerboard(cell: 32, first: [128, 128, 128, 255], second: [255, 255, 255, 255]),
                                options: HEICTestOptions(depth: depth))
            XCTAssertFalse(heic.isEmpty, "\(depth)-bit")
            let image = try ImageDecoder().decode(heic, target: .original, limits: limits)
            let grey = Array(image.row(16)[64..<68]), white = Array(image.row(16)[(4 * 48)..<(4 * 48 + 4)])
            XCTAssertLessThanOrEqual(zip(grey, [128, 128, 128, 255]).map { abs(Int($0) - $1) }.max() ?? 0, 2,
                                     "\(depth)-bit grey: \(grey)")
            XCTAssertEqual(white, Self.white, "\(depth)-bit full scale")
        }
    }

    /// The quadrants a viewer shows for each EXIF orientation value libheif's encoder
    /// turns into irot/imir: top-left, top-right, bottom-left, bottom-right.
    private static let shown: [Int: [[UInt8]]] = [
        1: [red, green, blue, white], 2: [green, red, white, blue], 3: [white, blue, green, red],
        4: [blue, white, red, green], 5: [red, blue, green, white], 6: [blue, red, white, green],
        7: [white, green, blue, red], 8: [green, white, red, blue],
    ]

    func testIrotAndImirAreAppliedOnceAndTheExifTagNotAtAll() throws {
        for orientation in 1...8 {
            // The Exif block says 6 whatever the transforms say: were it applied too,
            // every case but 6 would come out turned.
            let heic = makeHEIC(width: 64, height: 32, pattern: Self.quadrants,
                                options: HEICTestOptions(orientation: orientation, exif: exifTIFF(orientation: 6)))
            let image = try ImageDecoder().decode(heic, target: .original, limits: limits)
            let upright = orientation >= 5 ? [32, 64] : [64, 32]
            XCTAssertEqual([image.width, image.height, image.sourceWidth, image.sourceHeight], upright + upright,
                           "orientation \(orientation)")
            let expected = try XCTUnwrap(Self.shown[orientation])
            let points = [(image.width / 4, image.height / 4), (3 * image.width / 4, image.height / 4),
                          (image.width / 4, 3 * image.height / 4), (3 * image.width / 4, 3 * image.height / 4)]
            for ((x, y), colour) in zip(points, expected) {
                let actual = Array(image.row(y)[(4 * x)..<(4 * x + 4)])
                XCTAssertLessThanOrEqual(zip(actual, colour).map { abs(Int($0) - Int($1)) }.max() ?? 0, 12,
                                         "orientation \(orientation) at (\(x), \(y)): \(actual)")
            }
        }
    }

    func testDeepImagesTurnAndMirrorToo() throws {
        // libheif 1.15 mirrors 8-bit planes only (such files failed before); the
        // builder turns and mirrors at any depth.
        for orientation in [2, 5, 6] {
            let heic = makeHEIC(width: 64, height: 32, pattern: Self.quadrants,
                                options: HEICTestOptions(depth: 10, orientation: orientation))
            let image = try ImageDecoder().decode(heic, target: .original, limits: limits)
            XCTAssertEqual([image.width, image.height], orientation >= 5 ? [32, 64] : [64, 32])
            let topLeft = Array(image.row(image.height / 4)[(4 * (image.width / 4))..<(4 * (image.width / 4) + 4)])
            let expected = try XCTUnwrap(Self.shown[orientation]?[0])
            XCTAssertLessThanOrEqual(zip(topLeft, expected).map { abs(Int($0) - Int($1)) }.max() ?? 0, 12,
                                     "orientation \(orientation): \(topLeft)")
        }
    }

    /// Straight RGBA at the file's size, as the loader's C API hands it over.
    private func decodeWhole(_ heic: [UInt8]) throws -> [UInt8] {
        let image = try ImageDecoder().decode(heic, options: DecodeOptions(target: .original), limits: limits)
        return (0..<image.height).flatMap { Array(image.row($0)[0..<(4 * image.width)]) }
    }

    func testPixelsAreLibheifsToTheBit() throws {
        let cases: [(String, Int, Int, TestPattern, HEICTestOptions)] = [
            ("8-bit 4:2:0", 96, 64, .gradient, HEICTestOptions(chroma: "420", quality: 60)),
            ("8-bit 4:2:2", 96, 64, .gradient, HEICTestOptions(chroma: "422", quality: 60)),
            ("8-bit 4:4:4", 96, 64, .gradient, HEICTestOptions(quality: 60)),
            ("10-bit 4:2:0", 96, 64, .gradient, HEICTestOptions(depth: 10, chroma: "420", quality: 60)),
            ("12-bit 4:4:4", 64, 64, .gradient, HEICTestOptions(depth: 12, quality: 60)),
            ("BT.709 limited range", 64, 64, .gradient,
             HEICTestOptions(chroma: "420", quality: 60, colour: (matrix: 1, fullRange: false))),
            ("BT.2020 10-bit", 64, 64, .gradient, HEICTestOptions(depth: 10, quality: 60, colour: (matrix: 9, fullRange: true))),
            ("8-bit alpha, turned", 64, 48,
             .checkerboard(cell: 8, first: [200, 100, 50, 255], second: [20, 40, 60, 100]),
             HEICTestOptions(chroma: "420", quality: 60, orientation: 6)),
            ("10-bit alpha", 64, 48, .checkerboard(cell: 8, first: [200, 100, 50, 30], second: [20, 40, 60, 220]),
             HEICTestOptions(depth: 10, quality: 60)),
            // An odd size: libheif codes 62 x 34 and shows 61 x 33 through a grid of one tile.
            ("odd size, 4:2:0", 61, 33, .gradient, HEICTestOptions(chroma: "420", quality: 60)),
        ]
        for (name, width, height, pattern, options) in cases {
            let heic = makeHEIC(width: width, height: height, pattern: pattern, options: options)
            XCTAssertFalse(heic.isEmpty, name)
            let reference = try XCTUnwrap(decodeWithLibheifAtDepth(heic), name)
            let pixels = try decodeWhole(heic)
            XCTAssertEqual(pixels.count, reference.rgba.count, name)
            let differing = zip(pixels, reference.rgba).filter { $0 != $1 }.count
            XCTAssertEqual(differing, 0, "\(name): \(differing) of \(pixels.count) bytes differ from libheif's")
        }
    }

    func testGridsOfTilesDecode() throws {
        let colours: [[UInt8]] = [Self.red, Self.green, Self.blue, Self.white, [0, 0, 0, 255], [255, 255, 0, 255]]
        let heic = makeGridHEIC(columns: 3, rows: 2, tileWidth: 64, tileHeight: 64, colours: colours)
        XCTAssertFalse(heic.isEmpty)
        XCTAssertEqual(ImageFormat(sniffing: heic), .heif)
        let image = try ImageDecoder().decode(heic, target: TargetSize(width: 96, height: 96), limits: limits)
        XCTAssertEqual([image.width, image.height, image.sourceWidth, image.sourceHeight], [96, 64, 192, 128])
        for (index, colour) in colours.enumerated() {
            let x = (index % 3) * 32 + 16, y = (index / 3) * 32 + 16
            let actual = Array(image.row(y)[(4 * x)..<(4 * x + 4)])
            XCTAssertLessThanOrEqual(zip(actual, colour).map { abs(Int($0) - Int($1)) }.max() ?? 0, 3,
                                     "tile \(index): \(actual)")
        }
    }

    func testOverlaysAreRefusedAsUnsupported() throws {
        let colours: [[UInt8]] = [Self.red, Self.green]
        let overlay = makeGridHEIC(columns: 2, rows: 1, tileWidth: 64, tileHeight: 64, colours: colours, overlay: true)
        XCTAssertEqual(ImageFormat(sniffing: overlay), .heif)
        DecodingTestHelpers.assertDecodeThrows(.unsupported, overlay)
        // The same tiles as a grid decode.
        let grid = makeGridHEIC(columns: 2, rows: 1, tileWidth: 64, tileHeight: 64, colours: colours)
        XCTAssertEqual(try ImageDecoder().decode(grid, target: TargetSize(width: 128, height: 64), limits: limits).width, 128)
    }

    func testMaxPixelsHoldsAtTheExactEdge() throws {
        // 60 x 30: x265 codes 64 x 32 and crops; the limit is on the image.
        DecodingTestHelpers.assertMaxPixelsEdge(makeHEIC(width: 60, height: 30), pixels: 1800)
        let grid = makeGridHEIC(columns: 2, rows: 1, tileWidth: 64, tileHeight: 64, colours: [Self.red, Self.blue])
        DecodingTestHelpers.assertMaxPixelsEdge(grid, pixels: 128 * 64)
    }

    func testHeadersThatClaimTooMuchAreRefusedBeforeDecoding() throws {
        let grid = makeGridHEIC(columns: 2, rows: 1, tileWidth: 64, tileHeight: 64, colours: [Self.red, Self.blue])
        let layout = try XCTUnwrap(gridDataOffset(in: grid))
        // The grid's canvas, which libheif allocates, against its ispe of 128 x 64.
        var canvas = grid
        canvas.replaceSubrange(layout + 4..<layout + 8, with: bigEndian(30_000, bytes: 2) + bigEndian(30_000, bytes: 2))
        DecodingTestHelpers.assertDecodeThrows(.tooLarge, canvas, "a 30000 x 30000 canvas")
        var cells = grid
        cells.replaceSubrange(layout + 2..<layout + 4, with: [15, 16])
        DecodingTestHelpers.assertDecodeThrows(.tooLarge, cells, "16 x 17 cells")
        var extents = grid
        let ispe = try XCTUnwrap(isoBoxOffset("ispe", in: grid))
        extents.replaceSubrange(ispe + 12..<ispe + 20, with: bigEndian(10_000, bytes: 4) + bigEndian(10_000, bytes: 4))
        DecodingTestHelpers.assertDecodeThrows(.tooLarge, extents, "a tile's ispe of 10000 x 10000")
    }

    func testAPictureSizeInsideTheHEVCStreamCountsToo() throws {
        // x265 codes 200 x 200 as whole coding blocks (208 x 208) and crops; libde265
        // allocates the coded size, whatever ispe claims.
        let heic = makeHEIC(width: 200, height: 200)
        let sps = try XCTUnwrap(firstSequenceParameterSet(in: heic))
        let size = try XCTUnwrap(HEVCSequenceParameters(ArraySlice(sps)))
        XCTAssertEqual([size.codedWidth, size.codedHeight], [208, 208])
        // ispe says 20 x 20: within max_pixels 400, while the picture is 43264.
        var lying = heic
        let ispe = try XCTUnwrap(isoBoxOffset("ispe", in: heic))
        lying.replaceSubrange(ispe + 12..<ispe + 20, with: bigEndian(20, bytes: 4) + bigEndian(20, bytes: 4))
        DecodingTestHelpers.assertDecodeThrows(.tooLarge, lying, limits: DecodeLimits(maxPixels: 400))
    }

    func testCorruptAndTruncatedFilesAreDecodeErrors() {
        let heic = makeHEIC(width: 64, height: 64, pattern: .fineChecker)
        for keep in [heic.count / 2, heic.count - 3, 40, 300] {
            DecodingTestHelpers.assertDecodeThrows(.decode, Array(heic.prefix(keep)), "kept \(keep) of \(heic.count) bytes")
        }
        var boxes = heic
        let meta = isoBoxOffset("meta", in: heic) ?? 0
        boxes.replaceSubrange(meta..<meta + 4, with: bigEndian(heic.count * 2, bytes: 4))
        DecodingTestHelpers.assertDecodeThrows(.decode, boxes, "a meta box longer than the file")
        DecodingTestHelpers.assertDecodeThrows(.decode, Array(heic.prefix(32)) + [UInt8](repeating: 0xFF, count: 64))
    }

    /// Where the grid item's data (version, flags, rows - 1, columns - 1, width, height) lies.
    private func gridDataOffset(in file: [UInt8]) -> Int? {
        file.withUnsafeBufferPointer { bytes -> Int? in
            guard let items = try? HEIFItems(parsing: bytes),
                  let grid = items.items.values.first(where: { $0.type == HEIFItems.fourCC("grid") })
            else { return nil }
            return grid.extents.first?.lowerBound
        }
    }

    /// The SPS NAL unit in the file's hvcC.
    private func firstSequenceParameterSet(in file: [UInt8]) -> [UInt8]? {
        guard let hvcC = isoBoxOffset("hvcC", in: file) else { return nil }
        // 8 bytes of header, 22 of fields, then arrays: type, count, then per unit a
        // 16-bit length and the unit.
        var position = hvcC + 8 + 22
        let arrays = Int(file[position])
        position += 1
        for _ in 0..<arrays {
            let count = Int(file[position + 1]) << 8 | Int(file[position + 2])
            position += 3
            for _ in 0..<count {
                let length = Int(file[position]) << 8 | Int(file[position + 1])
                let unit = Array(file[position + 2..<position + 2 + length])
                if HEVCSequenceParameters.nalType(unit[0]) == HEVCSequenceParameters.spsType { return unit }
                position += 2 + length
            }
        }
        return nil
    }
}
#endif
#endif
