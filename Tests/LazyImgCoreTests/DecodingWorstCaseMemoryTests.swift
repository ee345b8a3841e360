#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_5 // ThreadSanitizer group 5 (see the Makefile's tsan)
import Glibc
import LazyImgCore
import TestSupport
import XCTest

/// What one decode of the worst file a server can craft holds at its peak, per format
/// (issue 17, items 9 and 10): each file is decoded in a process of its own, which
/// reports how far the decode raised its peak resident memory (VmHWM) and the CPU it
/// took. Every figure must stay within the bound `DecodeLimits` promises: the working
/// limit, plus the result (a 64 x 64 box here), plus a fixed allowance for malloc and
/// the libraries' own tables.
///
/// The files are the largest each limit lets through, and the smallest past it. To
/// keep the debug build's resampler quick they are sized for a 16 MiB working limit;
/// `make peak-memory` runs them at the default 64 MiB (LAZYIMG_PEAK_WORKING_MIB=64)
/// in a release build and prints the table in the docs.
final class DecodingWorstCaseMemoryTests: XCTestCase {
    private static let box = TargetSize(width: 64, height: 64)
    private static let working = (ChildProcess.environment("LAZYIMG_PEAK_WORKING_MIB").flatMap { Int($0) } ?? 16) << 20
    private static let limits = DecodeLimits(maxWorkingBytes: working)
    /// malloc's rounding and arenas, the codecs' tables and stacks, the result.
    private static let allowance = 6 << 20
    private static let withinWorkingLimit = working + allowance

    /// A side chosen at the default 64 MiB limit, scaled to this run's limit: sides go
    /// with the square root of the memory.
    private static func side(_ atDefaultLimit: Int) -> Int {
        Int(Double(atDefaultLimit) * (Double(working) / Double(DecodeLimits.defaultMaxWorkingBytes)).squareRoot())
    }

    // MARK: WebP (item 9)

    func testAnimatedWebPWithAHugeCanvasAndATinyFrame() throws {
        // 92 bytes: a 7000 x 7000 canvas, one 1 x 1 lossless frame. WebPAnimDecoder
        // held two full canvases: 590 MB.
        let webp = makeAnimatedWebP(canvasWidth: 7000, canvasHeight: 7000,
                                    frames: [WebPTestFrame(left: 0, top: 0, width: 1, height: 1, webp: makeWebP(width: 1, height: 1))])
        try measure("WebP animated, 7000x7000 canvas, 1x1 frame", webp, ceiling: Self.allowance, expect: "ok 64x64")
    }

    func testAnimatedWebPWithALargeLosslessAlphaFrameOffTheCanvasCorner() throws {
        // A frame that does not cover its canvas is decoded at its own size, then drawn
        // into canvas rows: the frame, libwebp's lossless pixels, rows.
        let (frameSide, canvasSide) = (Self.side(2800), Self.side(3000))
        let frame = makeSolidLosslessWebP(width: frameSide, height: frameSide, rgba: [200, 10, 10, 128])
        let webp = makeAnimatedWebP(canvasWidth: canvasSide, canvasHeight: canvasSide,
                                    frames: [WebPTestFrame(left: 100, top: 100, width: frameSide, height: frameSide,
                                                           webp: frame)])
        try measure("WebP animated, \(frameSide)x\(frameSide) lossless alpha frame on \(canvasSide)x\(canvasSide)", webp,
                    ceiling: Self.withinWorkingLimit, expect: "ok 64x64")
    }

    func testLosslessWebPAtTheWorkingLimit() throws {
        // libwebp keeps a lossless image's pixels whatever the output size: 4 bytes each.
        let side = Self.side(4000), over = Self.side(4200)
        try measure("WebP lossless with alpha, \(side)x\(side)",
                    makeSolidLosslessWebP(width: side, height: side, rgba: [10, 200, 10, 100]),
                    ceiling: Self.withinWorkingLimit, expect: "ok 64x64")
        try measure("WebP lossless with alpha, \(over)x\(over)",
                    makeSolidLosslessWebP(width: over, height: over, rgba: [10, 200, 10, 100]),
                    ceiling: Self.allowance, expect: "tooLarge")
    }

    func testLossyWebPWithAlpha() throws {
        // Full size for the resampler (4 bytes a pixel), plus libwebp's alpha plane and
        // the 32-bit pixels it decodes that plane through; past that, libwebp's scaler.
        let full = Self.side(2600), scaled = Self.side(3550), over = Self.side(3700)
        try measure("WebP lossy with alpha, \(full)x\(full) (decoded at full size)",
                    makeLossyWebPWithCostlyAlpha(width: full, height: full, alpha: 100),
                    ceiling: Self.withinWorkingLimit, expect: "ok 64x64")
        try measure("WebP lossy with alpha, \(scaled)x\(scaled) (libwebp scales)",
                    makeLossyWebPWithCostlyAlpha(width: scaled, height: scaled, alpha: 100),
                    ceiling: Self.withinWorkingLimit, expect: "ok 64x64")
        try measure("WebP lossy with alpha, \(over)x\(over)",
                    makeLossyWebPWithCostlyAlpha(width: over, height: over, alpha: 100),
                    ceiling: Self.allowance, expect: "tooLarge")
    }

    // MARK: JPEG (items 10 and 14)

    func testProgressiveJPEGCoefficients() throws {
        // libjpeg keeps every coefficient of a progressive file: 6 bytes a pixel at
        // 4:4:4, 3 at 4:2:0. 7000 x 7000 took 307 MB and 163 MB.
        let side444 = Self.side(3250), side420 = Self.side(4600)
        try measure("JPEG progressive 4:4:4, \(side444)x\(side444)",
                    makeFlatJPEG(width: side444, height: side444, layout: .yuv444, progressive: true),
                    ceiling: Self.withinWorkingLimit, expect: "ok 64x64")
        try measure("JPEG progressive 4:2:0, \(side420)x\(side420)",
                    makeFlatJPEG(width: side420, height: side420, layout: .yuv420, progressive: true),
                    ceiling: Self.withinWorkingLimit, expect: "ok 64x64")
        let crafted = settingJPEGFrameSize(makeJPEG(width: 16, height: 16, progressive: true), width: 7000, height: 7000)
        try measure("JPEG progressive 4:4:4, 7000x7000 (crafted)", crafted, ceiling: Self.allowance, expect: "tooLarge")
    }

    func testBaselineJPEGDecodesAtItsDCTScale() throws {
        try measure("JPEG baseline 4:2:0, 7000x7000", makeFlatJPEG(width: 7000, height: 7000, layout: .yuv420),
                    ceiling: Self.allowance, expect: "ok 64x64")
    }

    func testProgressiveJPEGScans() throws {
        // 442 scans, each walking all 65,536 blocks: refused before decoding.
        try measure("JPEG progressive, 442 scans over 2048x2048", makeManyScanJPEG(width: 2048, height: 2048),
                    ceiling: Self.allowance, expect: "tooLarge")
        // The most work a file may ask for: 16 visits a block, over the largest frame
        // whose coefficients fit.
        let side = Self.side(5700)
        try measure("JPEG progressive, 16 scans over \(side)x\(side) grey",
                    makeManyScanJPEG(width: side, height: side, repeats: 15), ceiling: Self.withinWorkingLimit,
                    expect: "ok 64x64")
    }

    // MARK: PNG and GIF

    func testInterlacedPNGAtTheWorkingLimit() throws {
        let side = Self.side(4000)
        try measure("PNG interlaced, \(side)x\(side)", makeFlatPNG(width: side, height: side, colorType: .rgb, interlaced: true),
                    ceiling: Self.withinWorkingLimit, expect: "ok 64x64")
    }

    func testTheWidestPNGRowsWithinTheWorkingLimit() throws {
        // 16-bit RGBA: libspng's scanlines are 8 bytes a pixel. Rows grow with the
        // width alone.
        let width = 1_300_000 * Self.working / DecodeLimits.defaultMaxWorkingBytes
        try measure("PNG 16-bit RGBA, \(width)x2", makeFlatPNG(width: width, height: 2, colorType: .rgba, bitDepth: 16),
                    ceiling: Self.withinWorkingLimit, expect: "ok 64x1")
    }

    func testFillCropOfATallPNG() throws {
        // Filling the 64 px box, a 64-pixel-wide file shrinks to its own height first.
        let within = 240_000 * Self.working / DecodeLimits.defaultMaxWorkingBytes
        let over = 270_000 * Self.working / DecodeLimits.defaultMaxWorkingBytes
        try measure("PNG 64x\(within), filling the box", makeFlatPNG(width: 64, height: within, colorType: .gray),
                    fill: true, ceiling: Self.withinWorkingLimit, expect: "ok 64x64")
        try measure("PNG 64x\(over), filling the box", makeFlatPNG(width: 64, height: over, colorType: .gray),
                    fill: true, ceiling: Self.allowance, expect: "tooLarge")
    }

    func testInterlacedGIFFrame() throws {
        // Interlaced lines are kept as palette indices, a byte a pixel.
        let side = Self.side(7000)
        let gif = makeGIF(screenWidth: side, screenHeight: side, palette: [[10, 20, 30]],
                          frames: [GIFTestFrame(width: side, height: side, indices: [UInt8](repeating: 0, count: side * side),
                                                interlaced: true)])
        try measure("GIF interlaced, \(side)x\(side)", gif, ceiling: Self.withinWorkingLimit, expect: "ok 64x64")
    }

    // MARK: AVIF and HEIC (issue 17/20: their decoded pictures count too)

    #if LAZYIMG_AVIF
    func testAVIFPhotoAtTheWorkingLimit() throws {
        // dav1d's frame padded to 128 (1.5 bytes a pixel at 8-bit 4:2:0) and its state.
        try XCTSkipIf(ProcessResources.underThreadSanitizer, "resident memory under ThreadSanitizer is its shadow memory")
        let photo = AVIFTestOptions(subsampled: true, lossless: false, quantizer: 30)
        let side = Self.side(4800), over = Self.side(5200)
        try measure("AVIF 8-bit 4:2:0, \(side)x\(side)", makeAVIF(width: side, height: side, options: photo),
                    ceiling: Self.withinWorkingLimit, expect: "ok 64x64")
        try measure("AVIF 8-bit 4:2:0, \(over)x\(over)", makeAVIF(width: over, height: over, options: photo),
                    ceiling: Self.allowance, expect: "tooLarge")
    }
    #endif

    #if LAZYIMG_HEIF
    func testHEICPhotoAtTheWorkingLimit() throws {
        // libde265's picture (1.5 bytes a pixel at 8-bit 4:2:0), its tables and the
        // copy SAO works through.
        try XCTSkipIf(ProcessResources.underThreadSanitizer, "resident memory under ThreadSanitizer is its shadow memory")
        try XCTSkipUnless(canEncodeHEIC, "no HEVC encoder to make the files with")
        let photo = HEICTestOptions(chroma: "420", quality: 70)
        let side = Self.side(4000), over = Self.side(4400)
        try measure("HEIC 8-bit 4:2:0, \(side)x\(side)", makeHEIC(width: side, height: side, pattern: .gradient, options: photo),
                    ceiling: Self.withinWorkingLimit, expect: "ok 64x64")
        try measure("HEIC 8-bit 4:2:0, \(over)x\(over)", makeHEIC(width: over, height: over, pattern: .gradient, options: photo),
                    ceiling: Self.allowance, expect: "tooLarge")
    }
    #endif
}

extension DecodingWorstCaseMemoryTests {
    /// Decodes `bytes` into the 64 x 64 box in a child process and checks what it
    /// reports: the outcome, and a peak within `ceiling`.
    private func measure(_ name: String, _ bytes: [UInt8], fill: Bool = false, ceiling: Int, expect outcome: String,
                         file: StaticString = #filePath, line: UInt = #line) throws {
        try XCTSkipIf(ProcessResources.underThreadSanitizer, "resident memory under ThreadSanitizer is its shadow memory")
        XCTAssertFalse(bytes.isEmpty, "the test image could not be made", file: file, line: line)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let input = directory.path + "/input", report = directory.path + "/report"
        try write(bytes, to: input)
        let child = try ChildProcess(test: "LazyImgCoreTests.DecodingWorstCaseMemoryTests/testDecodeInThisProcess",
                                     environment: ["LAZYIMG_PEAK_INPUT": input, "LAZYIMG_PEAK_REPORT": report,
                                                   "LAZYIMG_PEAK_FIT": fill ? "fill" : "fit"])
        XCTAssertEqual(child.wait(), 0, "the child process failed: \(name)", file: file, line: line)
        let fields = String(decoding: try read(report), as: UTF8.self).split(separator: " ")
        guard fields.count >= 3, let growth = Int(fields[0]), let cpu = Int(fields[1]) else {
            return XCTFail("no report from the child: \(name)", file: file, line: line)
        }
        let result = fields.dropFirst(2).joined(separator: " ")
        print("peak: | \(name) | \(bytes.count) | \(result) | \(ByteFigure(growth)) | \(ByteFigure(ceiling)) | \(cpu) |")
        XCTAssertEqual(result, outcome, name, file: file, line: line)
        XCTAssertLessThanOrEqual(growth, ceiling, "\(name): peak \(ByteFigure(growth))", file: file, line: line)
    }

    /// Run only as the child: reads the file, warms the decoders up on small images (so
    /// their code and tables are resident), then measures one decode.
    func testDecodeInThisProcess() throws {
        guard let input = ChildProcess.environment("LAZYIMG_PEAK_INPUT"),
              let report = ChildProcess.environment("LAZYIMG_PEAK_REPORT")
        else { throw XCTSkip("runs in a process of its own, started by the other tests of this class") }
        let bytes = [UInt8](try read(input))
        let decoder = ImageDecoder()
        for sample in [makeJPEG(width: 64, height: 64, progressive: true), makePNG(width: 64, height: 64, interlaced: true),
                       makeWebP(width: 64, height: 64), makeFlatWebP(width: 64, height: 64, rgba: [1, 2, 3, 4], lossless: false),
                       makeGIF(screenWidth: 8, screenHeight: 8, palette: [[1, 2, 3]],
                               frames: [GIFTestFrame(width: 8, height: 8, indices: [UInt8](repeating: 0, count: 64))])] {
            _ = try? decoder.decode(sample, target: Self.box, limits: DecodeLimits())
        }
        let measured = try ProcessResources.measurePeakGrowth { () -> (String, Int) in
            let start = Self.cpuMicroseconds()
            let outcome: String
            do {
                let fit: FitMode = ChildProcess.environment("LAZYIMG_PEAK_FIT") == "fill" ? .fill : .fit
                let image = try decoder.decode(bytes, options: DecodeOptions(target: Self.box, fit: fit), limits: Self.limits)
                outcome = "ok \(image.width)x\(image.height)"
            } catch {
                outcome = "\(error)"
            }
            return (outcome, (Self.cpuMicroseconds() - start) / 1000)
        }
        guard let growth = measured.growth else { throw XCTSkip("/proc/self/clear_refs is not available") }
        try write(Array("\(growth) \(measured.result.1) \(measured.result.0)".utf8), to: report)
    }

    private static func cpuMicroseconds() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1_000_000 + usage.ru_utime.tv_usec + usage.ru_stime.tv_usec
    }

    private func write(_ bytes: [UInt8], to path: String) throws {
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)), path)
    }

    private func read(_ path: String) throws -> Data {
        try XCTUnwrap(FileManager.default.contents(atPath: path), path)
    }
}

/// Bytes as MiB with one decimal, for the table.
private struct ByteFigure: CustomStringConvertible {
    let bytes: Int
    init(_ bytes: Int) { self.bytes = bytes }
    var description: String {
        let tenths = (bytes * 10 + (1 << 19)) >> 20
        return "\(tenths / 10).\(tenths % 10) MiB"
    }
}
#endif
