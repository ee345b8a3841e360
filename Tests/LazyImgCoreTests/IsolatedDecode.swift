#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_5 // ThreadSanitizer group 5 (see the Makefile's tsan)
import Glibc
@testable import LazyImgCore
import TestSupport
import XCTest

/// One decode measured in a process of its own: how far it raised the peak resident
/// memory (VmHWM), and how it ended. The parent makes the file, so the encoder's freed
/// memory cannot be reused by the decoder and hide its growth; the child first decodes
/// a small file of the same format, so that code and tables paged in once per process
/// are not counted.
enum IsolatedDecode {
    struct Outcome {
        let growth: Int
        /// "ok 64x64", or the error ("tooLarge").
        let result: String
        /// The decoder's `lastFailureReason`.
        let reason: String
    }

    /// The box decodes shrink into: small, so the result counts for little.
    static let box = TargetSize(width: 64, height: 64)

    /// Runs `childTest` (a test that calls `runAsChild`) on `file`, under `limits`.
    static func measure(_ file: [UInt8], warmUp: [UInt8], limits: DecodeLimits, childTest: String) throws -> Outcome {
        try XCTSkipIf(ProcessResources.underThreadSanitizer, "resident memory under ThreadSanitizer is its shadow memory")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let paths = ["input", "warm-up", "report"].map { directory.path + "/" + $0 }
        try write(file, to: paths[0])
        try write(warmUp, to: paths[1])
        let child = try ChildProcess(test: childTest, environment: [
            "LAZYIMG_ISOLATED_INPUT": paths[0], "LAZYIMG_ISOLATED_WARM_UP": paths[1], "LAZYIMG_ISOLATED_REPORT": paths[2],
            "LAZYIMG_ISOLATED_MAX_PIXELS": String(limits.maxPixels),
            "LAZYIMG_ISOLATED_WORKING": String(limits.maxWorkingBytes),
        ])
        XCTAssertEqual(child.wait(), 0, "the child process failed")
        let lines = String(decoding: try DecodingTestHelpers.read(paths[2]), as: UTF8.self).split(separator: "\n",
                                                                                                  omittingEmptySubsequences: false)
        guard lines.count == 3, let growth = Int(lines[0]), growth >= 0 else {
            throw XCTSkip("/proc/self/clear_refs is not available")
        }
        return Outcome(growth: growth, result: String(lines[1]), reason: String(lines[2]))
    }

    /// Measures `file` under `limits`, prints its row of the table of peaks beside
    /// estimates (`make peak-memory`), and asserts that it decoded and that `estimate`
    /// covers its peak.
    static func assertEstimateCovers(_ name: String, _ file: [UInt8], estimate: Int, warmUp: [UInt8],
                                     limits: DecodeLimits, childTest: String, line: UInt) throws {
        XCTAssertFalse(file.isEmpty, "\(name): the test image could not be made", line: line)
        let outcome = try measure(file, warmUp: warmUp, limits: limits, childTest: childTest)
        XCTAssertTrue(outcome.result.hasPrefix("ok "), "\(name): \(outcome.result)", line: line)
        let ratio = (Double(estimate) / Double(max(1, outcome.growth)) * 100).rounded() / 100
        print("estimate: | \(name) | \(ByteCount(outcome.growth)) | \(ByteCount(estimate)) | \(ratio) |")
        XCTAssertLessThanOrEqual(outcome.growth, estimate, "\(name): the estimate is below the peak", line: line)
    }

    /// The child's part: nothing unless started by `measure`.
    static func runAsChild() throws {
        let environment = ["INPUT", "WARM_UP", "REPORT", "MAX_PIXELS", "WORKING"].map {
            ChildProcess.environment("LAZYIMG_ISOLATED_" + $0)
        }
        guard let input = environment[0], let warmUp = environment[1], let report = environment[2],
              let maxPixels = environment[3].flatMap({ Int($0) }), let working = environment[4].flatMap({ Int($0) })
        else { throw XCTSkip("runs in a process of its own, started by the other tests of its class") }
        let file = try DecodingTestHelpers.read(input)
        let decoder = ImageDecoder()
        _ = try? decoder.decode(try DecodingTestHelpers.read(warmUp), target: box, limits: DecodeLimits())
        let limits = DecodeLimits(maxPixels: maxPixels, maxWorkingBytes: working)
        let measured = ProcessResources.measurePeakGrowth { () -> String in
            do {
                let image = try decoder.decode(file, target: box, limits: limits)
                return "ok \(image.width)x\(image.height)"
            } catch {
                return "\(error)"
            }
        }
        try write(Array("\(measured.growth ?? -1)\n\(measured.result)\n\(decoder.lastFailureReason)".utf8), to: report)
    }

    private static func write(_ bytes: [UInt8], to path: String) throws {
        guard let handle = fopen(path, "w") else { throw XCTSkip("cannot write \(path)") }
        defer { fclose(handle) }
        XCTAssertEqual(fwrite(bytes, 1, bytes.count, handle), bytes.count)
    }
}
#endif
