#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_3 // ThreadSanitizer group 3 (see the Makefile's tsan)
@testable import ScrollBench
import XCTest

/// The scroll benchmark's harness works: traces follow their physics, and a tiny trace
/// runs end to end through lazyimg's C API and a baseline over the loopback site with
/// sound bookkeeping. It checks counts, never timings: the figures are the
/// benchmark's business (make bench-scroll).
final class ScrollBenchHarnessTests: XCTestCase {
    private func tinyFling() -> ScrollTrace {
        var builder = TraceBuilder(rows: 120, visibleRows: 10)
        builder.rest(seconds: 0.2)
        builder.fling(rowsPerSecond: 150)
        builder.rest(seconds: 0.3)
        return builder.trace(named: "tiny fling")
    }

    func testFlingAnnouncesWhereItRestsAndStopsAboveTheMinimumSpeed() {
        let trace = tinyFling()
        let gliding = trace.frames.filter { $0.motion == .decelerating }
        let announced = gliding.compactMap(\.restingPosition)
        XCTAssertEqual(announced.count, 1, "the toolkit announces the resting place once per fling")
        XCTAssertEqual(gliding.first?.restingPosition, announced.first)
        XCTAssertEqual(gliding.last?.position, announced.first, "the list rests where it was announced")
        let physics = DecelerationPhysics()
        XCTAssertGreaterThanOrEqual(gliding.last.map { abs($0.velocity) } ?? 0, physics.minimumSpeed)
        XCTAssertEqual(trace.frames.last?.motion, .idle)
        XCTAssertEqual(trace.visibleRange(at: 3.5), 3..<14, "a row cut at the top adds one")
        XCTAssertEqual(trace.visibleRange(at: 3), 3..<13)
    }

    func testTinyTraceRunsThroughLazyImgAndABaseline() throws {
        let images = try SiteImages.make(photosDirectory: nil, generatedCount: 2, width: 96, height: 64)
        let bench = try ScrollBenchmark(images: images, delayMilliseconds: 5, bytesPerSecond: 0)
        defer { bench.stop() }
        let trace = tinyFling()

        let lazy = try bench.run(trace, with: .lazyimg)
        XCTAssertEqual(lazy.hostNanoseconds.count, trace.frames.count, "one timed host frame per trace frame")
        XCTAssertEqual(lazy.hostCPUNanoseconds.count, trace.frames.count, "and its CPU time")
        XCTAssertEqual(lazy.frameMotions, trace.frames.map(\.motion), "and its motion")
        let byMotion = BenchReport.motionTable(trace, [lazy]).split(separator: "\n").map {
            $0.split(separator: " ").prefix(3).map(String.init)
        }
        for motion in ["idle", "decelerating"] {
            let frames = trace.frames.filter { "\($0.motion)" == motion }.count
            XCTAssertTrue(byMotion.contains(["lazyimg", motion, String(frames)]),
                          "a row per motion with its frame count: \(byMotion)")
        }
        XCTAssertGreaterThan(lazy.tally.tickets, 0, "the first screen's requests miss and get tickets")
        XCTAssertEqual(lazy.tally.ticketEvents, lazy.tally.tickets, "every ticket got its one event")
        XCTAssertEqual(lazy.tally.unexpectedEvents, 0)
        XCTAssertEqual(lazy.tally.requestErrors, 0)
        XCTAssertEqual(lazy.timeToVisible.count, 1, "one settle, after the fling")
        XCTAssertLessThanOrEqual(lazy.wastedRequests, lazy.requests)
        XCTAssertLessThanOrEqual(lazy.bytes, lazy.requests * (images.jpegs.map(\.count).max() ?? 0))

        let lazyTable = try bench.run(trace, with: .lazyTable)
        XCTAssertEqual(lazyTable.hostNanoseconds.count, trace.frames.count)
        XCTAssertEqual(lazyTable.timeToVisible.count, 1)
        XCTAssertLessThanOrEqual(lazyTable.wastedRequests, lazyTable.requests)
        XCTAssertEqual(lazyTable.busyPasses, 0, "no busy threads unless asked")
    }

    /// Host time is what the loader timed around its own calls: the harness's call
    /// into it, cold after each frame's sleep, counts in no loader's figure (it was
    /// about 2 us of each, docs/performance.md, "The harness's own call").
    func testAFramesHostTimeIsTheLoadersOwn() throws {
        final class SleepyLoader: ListLoader {
            var frames = 0
            func frame(_ frame: ScrollFrame, visible: Range<Int>, appeared: [Int]) -> Int64 {
                frames += 1
                usleep(2_000)  // time the loader does not count as its own
                return Int64(frames)
            }
            func isShowingImage(row: Int) -> Bool { false }
            func finish() -> LoaderTally { LoaderTally() }
        }
        let images = try SiteImages.make(photosDirectory: nil, generatedCount: 2, width: 96, height: 64)
        let bench = try ScrollBenchmark(images: images, delayMilliseconds: 5, bytesPerSecond: 0)
        defer { bench.stop() }
        let trace = tinyFling()
        let run = TraceRunner(trace: trace, server: bench.server).run(SleepyLoader(), named: "sleepy", run: 0)
        XCTAssertEqual(run.hostNanoseconds, (1...Int64(trace.frames.count)).map { $0 })
        XCTAssertEqual(run.hostCPUNanoseconds.count, trace.frames.count)
    }

    func testBusyThreadsRunThroughEveryLoadersTrace() throws {
        let images = try SiteImages.make(photosDirectory: nil, generatedCount: 2, width: 96, height: 64)
        let bench = try ScrollBenchmark(images: images, delayMilliseconds: 5, bytesPerSecond: 0, busyThreads: 2)
        defer { bench.stop() }
        let trace = tinyFling()
        for kind in [LoaderKind.lazyimg, .lazyTable] {
            let run = try bench.run(trace, with: kind)
            XCTAssertGreaterThan(run.busyPasses, 0, "the busy threads worked through \(kind)'s run")
            XCTAssertEqual(run.hostNanoseconds.count, trace.frames.count)
        }
        let table = BenchReport.traceTable(trace, [], rounds: 1, busyThreads: 2, command: "make bench-scroll")
        XCTAssertTrue(table.contains("every loader with 2 busy threads at the UI thread's priority"), table)
    }

    /// The previews' picture table covers interlaced PNGs by pass count as it covers
    /// progressive JPEGs by scan count: a row per pass before the last, every image
    /// in each, nearer the whole file's picture with each pass.
    func testThePreviewTableOfAnInterlacedSiteHasARowPerPass() throws {
        let images = try SiteImages.make(photosDirectory: nil, generatedCount: 2, width: 256, height: 192,
                                         encoding: .interlacedPNG)
        let lines = PreviewReport.qualityTable(images, box: 128, command: "-").split(separator: "\n")
        let rows = lines.map { $0.split(separator: " ") }.filter { $0.count == 7 && $0[1] == "2/2" }
        XCTAssertEqual(rows.map { $0[0] }, ["1", "2", "3", "4", "5", "6"], lines.joined(separator: "\n"))
        let means = rows.compactMap { Double($0[5]) }
        XCTAssertEqual(means, means.sorted(), "PSNR grows with the passes")
        XCTAssertTrue(lines.contains { $0.contains("passes") })
    }
}
#endif
