#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_3 // ThreadSanitizer group 3 (see the Makefile's tsan)
import LazyImgCore
import TestSupport
import XCTest

/// What one AVIF or HEIC decode holds at its peak, for the largest image max_pixels
/// allows (max_decode_bytes lifted, as a host may) and for headers that claim more.
/// dav1d and libde265 keep the whole frame (a HEIC grid, one row of tiles), so the
/// cost is bytes per pixel; the RGBA rows go to the resampler one at a time, so no
/// full-size RGBA image is added. `DecodingAVIFHEICMemoryTests` checks the estimate
/// max_decode_bytes is held to. Each
/// decode runs in a fresh process: the file is made here, where the encoder's freed
/// memory cannot be reused by the decoder and hide its growth.
extension DecodingPeakMemoryTests {
    private static let childTest = "LazyImgCoreTests.DecodingPeakMemoryTests/testOneDecodeInThisProcess"
    /// 3000 x 3000: what a debug build encodes and decodes in seconds. The bytes per
    /// pixel hold at 50 megapixels too: LAZYIMG_TEST_PEAK_SIDE=7071 measures there.
    private static let side = ChildProcess.environment("LAZYIMG_TEST_PEAK_SIDE").flatMap { Int($0) } ?? 3000

    /// Decodes `file` into a 200 x 200 box under max_pixels `maxPixels` in a child
    /// process; how far its resident memory rose, and "ok" or the error.
    private func peakGrowth(of file: [UInt8], maxPixels: Int) throws -> (growth: Int, outcome: String) {
        try XCTSkipIf(ProcessResources.underThreadSanitizer, "ThreadSanitizer's allocator, not the decoder's")
        let input = try TemporaryFile(bytes: file)
        let output = try TemporaryFile(bytes: [])
        defer {
            input.remove()
            output.remove()
        }
        let child = try ChildProcess(test: Self.childTest, environment: [
            "LAZYIMG_TEST_PEAK_FILE": input.path, "LAZYIMG_TEST_PEAK_OUT": output.path,
            "LAZYIMG_TEST_PEAK_MAX_PIXELS": String(maxPixels),
        ])
        XCTAssertEqual(child.wait(), 0, "the child decode failed")
        let words = String(decoding: try DecodingTestHelpers.read(output.path), as: UTF8.self).split(separator: " ")
        guard words.count == 2, let growth = Int(words[0]) else { throw XCTSkip("/proc/self/clear_refs is not available") }
        return (growth, String(words[1]))
    }

    func testOneDecodeInThisProcess() throws {
        guard let input = ChildProcess.environment("LAZYIMG_TEST_PEAK_FILE"),
              let output = ChildProcess.environment("LAZYIMG_TEST_PEAK_OUT"),
              let maxPixels = ChildProcess.environment("LAZYIMG_TEST_PEAK_MAX_PIXELS").flatMap({ Int($0) })
        else { throw XCTSkip("runs in a process of its own, started by the peak memory tests") }
        let file = try DecodingTestHelpers.read(input)
        let options = DecodeOptions(target: TargetSize(width: 200, height: 200))
        let measured = ProcessResources.measurePeakGrowth { () -> String in
            do {
                let limits = DecodeLimits(maxPixels: maxPixels, maxWorkingBytes: Int.max)
                let image = try ImageDecoder().decode(file, options: options, limits: limits)
                return image.width == 200 ? "ok" : "wrong-size"
            } catch {
                return "\(error)"
            }
        }
        let line = measured.growth.map { "\($0) \(measured.result)" } ?? "unknown"
        let handle = try XCTUnwrap(fopen(output, "w"))
        fputs(line, handle)
        fclose(handle)
    }

    /// Asserts the decode of `file` (`side` x `side`, at max_pixels) stays within
    /// `bytesPerPixel` of it plus `perCell` for each grid cell plus 8 MiB (malloc, the
    /// test's threads), and prints it.
    private func assertPeak(_ file: [UInt8], _ name: String, side: Int = side, bytesPerPixel: Double,
                            cells: Int = 0, perCell: Int = 0, line: UInt = #line) throws {
        let pixels = side * side
        let (growth, outcome) = try peakGrowth(of: file, maxPixels: pixels)
        XCTAssertEqual(outcome, "ok", name, line: line)
        let perPixel = Double(growth) / Double(pixels)
        print("peak memory per decode: \(name) \(side)x\(side) at max_pixels -> 200x200: "
              + "\(growth >> 20) MiB, \((perPixel * 100).rounded() / 100) bytes per pixel")
        XCTAssertLessThan(growth, Int(bytesPerPixel * Double(pixels)) + cells * perCell + (8 << 20), name, line: line)
    }

    /// Asserts the decode of `file`, whose header claims more than max_pixels
    /// allows (`claim`, for the printed line), is refused as too large having paged
    /// in only code and small tables: nothing near the claimed size.
    private func assertRefusedWithoutAllocating(_ file: [UInt8], _ claim: String, line: UInt = #line) throws {
        let (growth, outcome) = try peakGrowth(of: file, maxPixels: DecodeLimits().maxPixels)
        print("peak memory per decode: \(claim): \(growth >> 10) KiB (\(outcome))")
        XCTAssertEqual(outcome, "tooLarge", claim, line: line)
        XCTAssertLessThan(growth, 4 << 20, claim, line: line)
    }

    #if LAZYIMG_AVIF
    func testAnAVIFAtMaxPixelsHoldsItsFrameButNoRGBAImage() throws {
        let side = Self.side
        let photo = makeAVIF(width: side, height: side, options: AVIFTestOptions(subsampled: true, lossless: false,
                                                                                 quantizer: 30))
        XCTAssertGreaterThan(photo.count, 0)
        // dav1d's 8-bit 4:2:0 frame is 1.5 bytes a pixel; the RGBA image would be 4.
        try assertPeak(photo, "AVIF 8-bit 4:2:0", bytesPerPixel: 2.5)
    }

    /// The most a pixel costs: 10-bit 4:4:4 with alpha, each plane in 16-bit words and
    /// alpha in a second dav1d decoder; and a grid, whose cells libavif copies into
    /// one frame and whose dav1d decoders it keeps until then.
    func testAVIFsOfTheCostliestKindsStayWithinTheirBound() throws {
        let side = 2000
        let alpha = TestPattern.checkerboard(cell: 100, first: [200, 100, 50, 255], second: [20, 40, 60, 100])
        let deep = makeAVIF(width: side, height: side, pattern: alpha,
                            options: AVIFTestOptions(depth: 10, lossless: false, quantizer: 30, rotation: 1))
        try assertPeak(deep, "AVIF 10-bit 4:4:4 + alpha, irot", side: side, bytesPerPixel: 10)
        let colours = (0..<64).map { [UInt8($0 * 4), 128, UInt8(255 - $0 * 4), 255] }
        let grid = makeGridAVIF(columns: 8, rows: 8, cellWidth: side / 8, cellHeight: side / 8, colours: colours)
        // The cells' frames and the grid's (3 bytes a pixel each), and per cell a dav1d
        // decoder of about 0.4 MiB.
        try assertPeak(grid, "AVIF grid of 8x8 cells, 4:4:4", side: side, bytesPerPixel: 7, cells: 64, perCell: 512 << 10)
    }

    func testAnAVIFHeaderClaimingMoreIsRefusedWithoutAllocating() throws {
        var avif = makeAVIF(width: 64, height: 64)
        let ispe = try XCTUnwrap(isoBoxOffset("ispe", in: avif))
        avif.replaceSubrange(ispe + 12..<ispe + 20, with: bigEndian(60_000, bytes: 4) + bigEndian(60_000, bytes: 4))
        try assertRefusedWithoutAllocating(avif, "AVIF claiming 60000x60000")
    }
    #endif

    #if LAZYIMG_HEIF
    func testAHEICAtMaxPixelsHoldsLibde265sPictureButNoRGB() throws {
        try XCTSkipUnless(canEncodeHEIC, "no HEVC encoder to make the file with")
        let side = Self.side
        let photo = makeHEIC(width: side, height: side, options: HEICTestOptions(chroma: "420", quality: 70))
        XCTAssertGreaterThan(photo.count, 0)
        // libde265's picture (1.5 bytes a pixel) and its tables (1.1), and while it
        // applies SAO a copy of the luma plane (1); no RGB planes (libheif's were 3).
        try assertPeak(photo, "HEIC 8-bit 4:2:0", bytesPerPixel: 4.5)
    }

    /// The most a pixel costs: 10-bit 4:4:4 with alpha, turned by irot (the builder
    /// turns the shrunk image: nothing at full size); and a grid, decoded a row of
    /// tiles at a time.
    func testHEICsOfTheCostliestKindsStayWithinTheirBound() throws {
        try XCTSkipUnless(canEncodeHEIC, "no HEVC encoder to make the file with")
        let side = 2000
        let alpha = TestPattern.checkerboard(cell: 100, first: [200, 100, 50, 255], second: [20, 40, 60, 100])
        let deep = makeHEIC(width: side, height: side, pattern: alpha,
                            options: HEICTestOptions(depth: 10, quality: 70, orientation: 6))
        // Planes in 16-bit words (6 bytes a pixel), tables, the SAO copy, the alpha
        // decoded first into 8 bits a pixel.
        try assertPeak(deep, "HEIC 10-bit 4:4:4 + alpha, irot", side: side, bytesPerPixel: 11)
        let colours = (0..<16).map { [UInt8($0 * 16), 128, UInt8(255 - $0 * 16), 255] }
        let grid = makeGridHEIC(columns: 4, rows: 4, tileWidth: side / 4, tileHeight: side / 4, colours: colours,
                                options: HEICTestOptions(chroma: "420", quality: 70))
        try assertPeak(grid, "HEIC grid of 4x4 tiles, 4:2:0", side: side, bytesPerPixel: 1.5)
    }

    func testAHEICGridCanvasClaimingMoreIsRefusedWithoutAllocating() throws {
        try XCTSkipUnless(canEncodeHEIC, "no HEVC encoder to make the file with")
        var grid = makeGridHEIC(columns: 2, rows: 1, tileWidth: 64, tileHeight: 64,
                                colours: [[255, 0, 0, 255], [0, 0, 255, 255]])
        // The grid's data is the last box: its canvas size ends the file's meta.
        let idat = try XCTUnwrap(isoBoxOffset("idat", in: grid))
        grid.replaceSubrange(idat + 12..<idat + 16, with: bigEndian(30_000, bytes: 2) + bigEndian(30_000, bytes: 2))
        try assertRefusedWithoutAllocating(grid, "HEIC grid canvas claiming 30000x30000")
    }
    #endif
}
#endif
