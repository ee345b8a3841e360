#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_4 // ThreadSanitizer group 4 (see the Makefile's tsan)
@_spi(Testing) @testable import LazyImgCore
import TestSupport
import XCTest

/// The container checks that run before libavif and libheif, on files built by hand:
/// they need neither library, so they run in every build.
final class HEIFItemsTests: XCTestCase {
    /// An infe (version 2) for item `id` of `type`.
    private func info(_ id: Int, _ type: String) -> [UInt8] {
        isoFullBox("infe", 2, bigEndian(id, bytes: 2) + bigEndian(0, bytes: 2) + Array(type.utf8) + [0])
    }

    /// iloc version 1 with 4-byte offsets and lengths: (id, method, extents).
    private func locations(_ entries: [(id: Int, method: Int, extents: [(Int, Int)])]) -> [UInt8] {
        isoFullBox("iloc", 1, [0x44, 0x00] + bigEndian(entries.count, bytes: 2) + entries.flatMap { entry in
            bigEndian(entry.id, bytes: 2) + bigEndian(entry.method, bytes: 2) + bigEndian(0, bytes: 2)
                + bigEndian(entry.extents.count, bytes: 2)
                + entry.extents.flatMap { bigEndian($0.0, bytes: 4) + bigEndian($0.1, bytes: 4) }
        })
    }

    private func file(meta children: [UInt8], after: [UInt8] = []) -> [UInt8] {
        isoBox("ftyp", Array("heic".utf8) + bigEndian(0, bytes: 4) + Array("mif1heic".utf8))
            + isoFullBox("meta", 0, children) + after
    }

    private func parse(_ bytes: [UInt8]) throws(LoaderError) -> HEIFItems {
        try bytes.withUnsafeBufferPointer { (buffer) throws(LoaderError) in try HEIFItems(parsing: buffer) }
    }

    private func checkSizes(_ bytes: [UInt8], maxPixels: Int = 1 << 20) throws(LoaderError) {
        try bytes.withUnsafeBufferPointer { (buffer) throws(LoaderError) in
            try HEIFItems(parsing: buffer).checkImageSizes(in: buffer, maxPixels: maxPixels)
        }
    }

    private func assertThrows(_ expected: LoaderError, _ body: () throws(LoaderError) -> Void, _ message: String,
                              line: UInt = #line) {
        do {
            try body()
            XCTFail("no error: \(message)", line: line)
        } catch {
            XCTAssertEqual(error, expected, message, line: line)
        }
    }

    /// A grid (item 1, data in idat) of two hvc1 tiles (items 2, 3, bytes in mdat), the
    /// grid's canvas `width` x `height`, and the tiles' ispe.
    private func gridFile(width: Int, height: Int, rows: Int = 1, columns: Int = 2, tileTypes: [String] = ["hvc1", "hvc1"],
                          inputs: [Int] = [2, 3], wide: Bool = false) -> [UInt8] {
        let gridData = [0, wide ? 1 : 0, UInt8(rows - 1), UInt8(columns - 1)]
            + bigEndian(width, bytes: wide ? 4 : 2) + bigEndian(height, bytes: wide ? 4 : 2)
        let ispe = isoFullBox("ispe", 0, bigEndian(64, bytes: 4) + bigEndian(64, bytes: 4))
        let ipma = isoFullBox("ipma", 0, bigEndian(2, bytes: 4) + bigEndian(2, bytes: 2) + [1, 0x81]
                                          + bigEndian(3, bytes: 2) + [1, 0x81])
        let children = info(1, "grid") + info(2, tileTypes[0]) + info(3, tileTypes[1])
        let meta = { (mdat: Int) in
            isoFullBox("iinf", 0, bigEndian(3, bytes: 2) + children)
                + self.locations([(1, 1, [(0, gridData.count)]), (2, 0, [(mdat, 4)]), (3, 0, [(mdat + 4, 4)])])
                + isoFullBox("iref", 0, isoBox("dimg", bigEndian(1, bytes: 2) + bigEndian(inputs.count, bytes: 2)
                                                          + inputs.flatMap { bigEndian($0, bytes: 2) }))
                + isoBox("iprp", isoBox("ipco", ispe) + ipma)
                + isoBox("idat", gridData)
        }
        let start = file(meta: meta(0)).count + 8
        return file(meta: meta(start), after: isoBox("mdat", [1, 2, 3, 4, 5, 6, 7, 8]))
    }

    func testItemsExtentsPropertiesAndInputsAreRead() throws {
        let bytes = gridFile(width: 128, height: 64)
        let items = try parse(bytes)
        XCTAssertEqual(Set(items.items.keys), [1, 2, 3])
        XCTAssertEqual(items.items[1]?.type, HEIFItems.fourCC("grid"))
        XCTAssertEqual(items.inputs[1], [2, 3])
        let tile = try XCTUnwrap(items.items[3])
        XCTAssertEqual(tile.extents.count, 1)
        XCTAssertEqual(Array(bytes[tile.extents[0]]), [5, 6, 7, 8])
        XCTAssertEqual(items.properties.map(\.type), [HEIFItems.fourCC("ispe")])
        XCTAssertNotNil(items.property(HEIFItems.fourCC("ispe"), of: tile))
        XCTAssertNoThrow(try checkSizes(bytes, maxPixels: 128 * 64))
    }

    func testCanvasesCellsAndDerivationsAreChecked() {
        assertThrows(.tooLarge, { () throws(LoaderError) in try checkSizes(gridFile(width: 128, height: 64), maxPixels: 128 * 64 - 1) },
                     "canvas past max_pixels")
        assertThrows(.tooLarge, { () throws(LoaderError) in try checkSizes(gridFile(width: 128, height: 64, rows: 16, columns: 17)) },
                     "272 cells")
        // What the fuzzer found: 32-bit sides whose product overflowed Int and trapped.
        assertThrows(.tooLarge, { () throws(LoaderError) in
            try checkSizes(gridFile(width: Int(UInt32.max), height: Int(UInt32.max), wide: true), maxPixels: Int.max)
        }, "a canvas of (2^32 - 1)^2")
        assertThrows(.decode, { () throws(LoaderError) in try checkSizes(gridFile(width: 128, height: 64, tileTypes: ["hvc1", "grid"])) },
                     "a grid of a grid")
        // What the fuzzer found: libheif 1.15 aborts on an input that is no image.
        assertThrows(.decode, { () throws(LoaderError) in try checkSizes(gridFile(width: 128, height: 64, inputs: [2, 15617])) },
                     "an input that is no item")
        assertThrows(.decode, { () throws(LoaderError) in try checkSizes(gridFile(width: 128, height: 64, tileTypes: ["hvc1", "Exif"])) },
                     "an input that is no image")
        // Tiles of 64 x 64 under max_pixels 1: the coding-block slack lets them pass.
        XCTAssertTrue(HEIFItems.fitsWithCodingBlocks(width: 64, height: 64, maxPixels: 1))
        XCTAssertFalse(HEIFItems.fitsWithCodingBlocks(width: 66, height: 66, maxPixels: 3))
        XCTAssertFalse(HEIFItems.fitsWithCodingBlocks(width: Int(UInt32.max), height: Int(UInt32.max), maxPixels: Int.max))
    }

    func testStructuresThatDoNotHoldTogetherAreDecodeErrors() {
        let cases: [(String, [UInt8])] = [
            ("an extent past the end", file(meta: locations([(1, 0, [(0, 1 << 20)])]))),
            ("idat offsets without idat", file(meta: locations([(1, 1, [(0, 4)])]))),
            ("33 extents", file(meta: locations([(1, 0, Array(repeating: (0, 1), count: 33))]))),
            ("construction method 2", file(meta: locations([(1, 2, [(0, 1)])]))),
            ("a child longer than meta", file(meta: bigEndian(64, bytes: 4) + Array("iinf".utf8))),
            ("a cut-off meta box", Array(file(meta: info(1, "hvc1")).dropLast(3))),
        ]
        for (name, bytes) in cases {
            assertThrows(.decode, { () throws(LoaderError) in _ = try parse(bytes) }, name)
        }
    }

    func testAFileWithoutMetaHasNoItems() throws {
        // An AVIF sequence keeps its frames in tracks; a cut-off mdat is not ours to judge.
        let bytes = isoBox("ftyp", Array("avis".utf8) + bigEndian(0, bytes: 4)) + bigEndian(1000, bytes: 4) + Array("mdat".utf8)
        XCTAssertTrue(try parse(bytes).items.isEmpty)
    }

    func testSequenceParameterSetsGiveTheirPictureSizeLayoutAndDepth() throws {
        let cases: [([(profile: Bool, level: Bool)], Int, Int, Int)] = [
            ([], 1, 4032, 3024),
            ([(true, true), (false, true), (true, false)], 1, 208, 208),
            ([(false, false)], 3, 65535, 17),
            ([(true, true), (true, true), (true, true), (true, true), (true, true), (true, true)], 0, 1, 1),
        ]
        for (subLayers, chroma, width, height) in cases {
            let nal = makeHEVCSequenceParameterSet(subLayers: subLayers, chromaFormat: chroma, width: width, height: height)
            XCTAssertTrue(nal.contains(3), "the test's SPS has emulation prevention bytes")
            let sps = try XCTUnwrap(HEVCSequenceParameters(ArraySlice(nal)), "\(subLayers.count) sub-layers")
            XCTAssertEqual([sps.codedWidth, sps.codedHeight, sps.chromaFormat], [width, height, chroma],
                           "\(subLayers.count) sub-layers")
            XCTAssertEqual(sps.shownSize?.width, width)
        }
        // x265 codes 4:2:0 200 x 198 as 208 x 200 and crops 8 x 2 in chroma samples.
        let windowed = try XCTUnwrap(HEVCSequenceParameters(ArraySlice(makeHEVCSequenceParameterSet(
            subLayers: [], chromaFormat: 1, width: 208, height: 200, window: [0, 4, 0, 1], depths: (10, 12)))))
        XCTAssertEqual([windowed.shownSize?.width, windowed.shownSize?.height], [200, 198])
        XCTAssertEqual([windowed.bitDepthLuma, windowed.bitDepthChroma], [10, 12])
        XCTAssertEqual([windowed.log2MinCodingSize, windowed.log2CodingTreeSize], [3, 5])
        XCTAssertNil(HEVCSequenceParameters(ArraySlice(makeHEVCSequenceParameterSet(subLayers: [], chromaFormat: 3, width: 64,
                                                                             height: 64, window: [32, 32, 0, 0])))?.shownSize,
                     "a window that leaves nothing")
        let cut = makeHEVCSequenceParameterSet(subLayers: [], chromaFormat: 1, width: 100, height: 100).prefix(14)
        XCTAssertNil(HEVCSequenceParameters(ArraySlice(cut)))
        XCTAssertNil(HEVCSequenceParameters([0x40, 0x01, 0, 0]), "a VPS, not an SPS")
    }
}
#endif
