#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_1 // ThreadSanitizer group 1 (see the Makefile's tsan)
import Dispatch
import Glibc
import XCTest
@testable import LazyImgCore
import TestSupport

private func url(_ row: Int) -> String { "http://example.test/\(row).jpg" }
private func urls(_ rows: some Sequence<Int>) -> [String] { rows.map(url) }

/// The scroll-aware policy on a fake transport and clock: the slow-scroll speed,
/// landing zones from the host's target and from the velocity samples, wrong
/// predictions, the order of starts, the nearly-done rule, the waste budget, start
/// pacing and large screens.
final class LoaderSchedulingTests: XCTestCase {
    /// Completes every live transfer until none is left (completions start more),
    /// and waits for their decodes.
    private func completeAll(_ h: PolicyHarness, bytes: [UInt8] = [1]) {
        while let next = h.transport.liveURLs.first { h.transport.complete(next, with: .success(bytes)) }
        h.waitForDecodes()
    }

    func testASlowDragLoadsLikeIdleAndAFastOneStartsNothing() throws {
        let h = try PolicyHarness(maxConcurrent: 16)
        try h.loader.setItems(PolicyHarness.urls(200))
        try h.loader.setVisibleRange(first: 0, count: 10)
        completeAll(h)
        try h.loader.setScrollState(.dragging, velocity: 30)
        try h.loader.setVisibleRange(first: 20, count: 10)
        XCTAssertEqual(h.transport.liveURLs, [], "30 rows/s is three screens a second: too fast")
        XCTAssertTrue(try h.loader.request(row: 25).isDeferred)
        try h.loader.setScrollState(.dragging, velocity: 9)
        XCTAssertEqual(h.transport.liveURLs, Set(urls(20..<30)), "under a screen a second: as at rest")
        XCTAssertTrue(try h.loader.request(row: 26).isPending)
    }

    func testAFrameTheSchedulerTakesAtOnceStartsNoRowItLeaves() throws {
        let h = try PolicyHarness(maxConcurrent: 16)
        try h.loader.setItems(PolicyHarness.urls(200))
        try h.loader.setScrollState(.dragging, velocity: 100)
        try h.loader.setVisibleRange(first: 20, count: 10)
        XCTAssertEqual(h.transport.liveURLs, [], "ten screens a second: nothing starts")
        // The scheduler's thread held inside a step (a fetch's start), so that the
        // frame's two calls wait for its next step together, as a frame's calls
        // usually do: the state that slows the list, then the range it moved to.
        let gate = h.transport.holdNextStart()
        let feed = "http://example.test/feed.json"
        _ = try h.loader.fetch(url: ImageURL(feed))
        XCTAssertEqual(gate.held.wait(timeout: .now() + .milliseconds(HangGuard.eventMilliseconds)), .success)
        try h.loader.setScrollState(.dragging, velocity: 9)
        try h.loader.setVisibleRange(first: 25, count: 10)
        gate.release.signal()
        XCTAssertEqual(h.transport.liveURLs, Set(urls(25..<35) + [feed]), "the rows it shows, as at rest")
        XCTAssertEqual(h.transport.cancelledCount, 0, "none of the last frame's rows started, to stop at once")
    }

    func testTheSlowScrollSpeedIsConfigurable() throws {
        let h = try PolicyHarness(maxConcurrent: 16) { $0.slowScrollRowsPerSecond = 50 }
        try h.loader.setItems(PolicyHarness.urls(200))
        try h.loader.setScrollState(.dragging, velocity: 30)
        try h.loader.setVisibleRange(first: 20, count: 10)
        XCTAssertEqual(h.transport.liveURLs, Set(urls(20..<30)))
        try h.loader.setScrollState(.dragging, velocity: 60)
        try h.loader.setVisibleRange(first: 40, count: 10)
        XCTAssertEqual(h.transport.liveURLs, [], "rows 20-29 left and were cancelled; 60 rows/s holds")
    }

    /// Reports deceleration frames 16 ms apart, as a toolkit does after the finger lifts.
    private func decelerate(_ h: PolicyHarness, _ speeds: [Double]) throws {
        for speed in speeds {
            h.clock.advance(by: 16)
            try h.loader.setScrollState(.decelerating, velocity: speed)
        }
    }

    /// Loads the first screen as a slow network would: each download takes a quarter
    /// second, so the host's target keeps the longest lead (`DownloadDurations`).
    private func loadSlowly(_ h: PolicyHarness) {
        h.settle()  // started now...
        h.clock.advance(by: 250)  // ...and ending a quarter second later
        completeAll(h)
    }

    /// A loader on 1,000 rows at rest on the first screen, loaded slowly, and the
    /// downloads started so far.
    private func restingOnTheFirstScreen() throws -> (PolicyHarness, Int) {
        let h = try PolicyHarness(maxConcurrent: 6)
        try h.loader.setItems(PolicyHarness.urls(1_000))
        try h.loader.setVisibleRange(first: 0, count: 10)
        loadSlowly(h)
        return (h, h.transport.startedURLs.count)
    }

    /// A fling braking hard (x0.88 a frame): after these four frames it is due to slow
    /// below a screen a second within the lead time.
    private static let hardBraking: [Double] = [250, 220, 194, 170]

    func testTheTargetStartsTheLandingRowsWhenDueWhileVisibleRowsFlyingPastWait() throws {
        let (h, started) = try restingOnTheFirstScreen()
        try h.loader.setScrollState(.dragging, velocity: 300)
        try h.loader.setVisibleRange(first: 30, count: 10)
        XCTAssertTrue(try h.loader.request(row: 35).isDeferred)
        // UIKit's scrollViewWillEndDragging: the finger lifts, the toolkit knows the end.
        try h.loader.setScrollTarget(first: 300, count: 10)
        try decelerate(h, Array(Self.hardBraking.prefix(3)))
        XCTAssertEqual(h.transport.startedURLs.count, started, "where, but not yet when: the decay is not timed yet")
        try decelerate(h, [Self.hardBraking[3]])
        XCTAssertEqual(Array(h.transport.startedURLs.dropFirst(started)), urls(300..<306), "resting rows first")
        try h.loader.setVisibleRange(first: 60, count: 10)
        XCTAssertTrue(try h.loader.request(row: 65).isDeferred, "rows flying past still wait")
        XCTAssertTrue(try h.loader.request(row: 301).isPending, "a landing row is on its way")
        completeAll(h)
        // The resting rows, then a quarter screen on the side the list comes from.
        XCTAssertEqual(Array(h.transport.startedURLs.dropFirst(started)), urls(300..<310) + urls([298, 299]))
    }

    func testOnAFastNetworkTheTargetStartsAtTheShortestLead() throws {
        let h = try PolicyHarness(maxConcurrent: 6)
        try h.loader.setItems(PolicyHarness.urls(1_000))
        try h.loader.setVisibleRange(first: 0, count: 10)
        completeAll(h)  // at once: the lead is its shortest, 0.3 s
        let started = h.transport.startedURLs.count
        try h.loader.setScrollState(.dragging, velocity: 300)
        try h.loader.setVisibleRange(first: 30, count: 10)
        try h.loader.setScrollTarget(first: 300, count: 10)
        // Braking x0.88 a frame, it slows below a screen a second ln(v / 10) / 8 s on.
        try decelerate(h, Self.hardBraking)
        XCTAssertEqual(h.transport.startedURLs.count, started, "at 170 rows/s the rest is 0.35 s away: not yet")
        try decelerate(h, [150, 132])
        XCTAssertEqual(h.transport.startedURLs.count, started, "at 132 rows/s, 0.32 s")
        try decelerate(h, [116, 102])
        XCTAssertEqual(Array(h.transport.startedURLs.dropFirst(started)), urls(300..<306), "at 102 rows/s, 0.29 s")
    }

    func testAFlingCaughtBeforeItsRestIsDueStartsNothingForItsTarget() throws {
        let (h, started) = try restingOnTheFirstScreen()
        // UIKit's decay (x0.998 a ms) from 400 rows/s: it would rest ~190 rows on, 1.5 s later.
        try h.loader.setScrollState(.decelerating, velocity: 400)
        try h.loader.setScrollTarget(first: 190, count: 10)
        var position = 0.0
        for frame in 1...30 {  // half a second of the glide
            let speed = 400 * exp(-2 * Double(frame) * 0.016)
            position += speed * 0.016
            h.clock.advance(by: 16)
            try h.loader.setScrollState(.decelerating, velocity: speed)
            try h.loader.setVisibleRange(first: Int(position), count: 10)
        }
        XCTAssertEqual(h.transport.startedURLs.count, started, "a second still to go: nothing started for the target")
        try h.loader.setScrollState(.dragging, velocity: -50)  // caught and pulled back
        XCTAssertEqual(h.transport.startedURLs.count, started)
        XCTAssertEqual(h.stats.downloadsCancelled, 0, "and nothing to cancel")
    }

    /// Physics the loader is not told about: it must find the rest from the samples.
    private struct Fling {
        let name: String
        let speed: (Double) -> Double
        /// The speed under which the list stops.
        let stopSpeed: Double
    }

    private let flings = [
        Fling(name: "exponential (UIKit, Android)", speed: { 400 * exp(-2 * $0) }, stopSpeed: 0.5),
        Fling(name: "constant braking", speed: { 400 - 500 * $0 }, stopSpeed: 0.5),
        Fling(name: "exponential, stopping at 25 rows/s", speed: { 400 * exp(-3 * $0) }, stopSpeed: 25),
    ]

    /// Flings from row `from` at 60 Hz, as a UI reports it: state and velocity, then
    /// the visible range; completes what starts at once. Returns how many downloads
    /// started more than `lead` seconds before the list slowed to the slow-scroll
    /// speed (10 rows/s here) or stopped, the rows started by then (after which the
    /// visible rows would load anyway), and where the list rested.
    private func fling(_ fling: Fling, from: Int, in h: PolicyHarness, lead: Double = 0.6,
                       announcingTarget: Bool = false)
        -> (startedEarly: Int, startedBySlow: Set<String>, rest: Int)
    {
        var slowAt = 0.0
        while fling.speed(slowAt) >= max(fling.stopSpeed, 10) { slowAt += 0.016 }
        // Where it rests, as the toolkit would say when the finger lifts.
        var target = Double(from), t = 0.0
        while fling.speed(t) >= fling.stopSpeed {
            target += fling.speed(t) * 0.016
            t += 0.016
        }
        var position = Double(from)
        var time = 0.0
        var startedEarly = 0
        var before = h.transport.startedURLs.count
        var startedBySlow: Set<String>?
        while true {
            let speed = fling.speed(time)
            if speed < max(fling.stopSpeed, 10) && startedBySlow == nil { startedBySlow = Set(h.transport.startedURLs) }
            if speed < fling.stopSpeed { break }
            h.clock.advance(by: 16)
            time += 0.016
            position += speed * 0.016
            try? h.loader.setScrollState(.decelerating, velocity: speed)
            if announcingTarget && time < 0.02 { try? h.loader.setScrollTarget(first: Int(target), count: 10) }
            try? h.loader.setVisibleRange(first: Int(position), count: 10)
            let now = h.transport.startedURLs.count
            if time < slowAt - lead { startedEarly += now - before }
            before = now
            completeAll(h)
        }
        try? h.loader.setScrollState(.idle, velocity: 0)
        return (startedEarly, startedBySlow ?? [], Int(position))
    }

    /// Flings each physics from row 1,000: nothing may start before the landing is
    /// due, the resting rows must start before the list slows, and at most `maxSpent`
    /// downloads start (`spentAre` says what they are).
    private func checkTheLanding(announcingTarget: Bool, maxSpent: Int, spentAre: String) throws {
        for physics in flings {
            let h = try PolicyHarness(maxConcurrent: 6)
            try h.loader.setItems(PolicyHarness.urls(5_000))
            try h.loader.setVisibleRange(first: 0, count: 10)
            completeAll(h)
            // Without a target, a list that stops at a minimum speed teaches that speed
            // with its first flings (never one alone); a target's distance times even
            // its first fling.
            if !announcingTarget && physics.stopSpeed > 1 {
                for start in [0, 400, 800] {
                    try h.loader.setVisibleRange(first: start, count: 10)
                    _ = fling(physics, from: start, in: h)
                }
            }
            try h.loader.setVisibleRange(first: 1_000, count: 10)
            completeAll(h)
            let startedBefore = h.transport.startedURLs.count
            let run = fling(physics, from: 1_000, in: h, announcingTarget: announcingTarget)
            XCTAssertEqual(run.startedEarly, 0, "\(physics.name): nothing starts before the landing is due")
            XCTAssertTrue(Set(urls(run.rest..<run.rest + 10)).isSubset(of: run.startedBySlow),
                          "\(physics.name): every row where the list rests (\(run.rest)) started before it slowed")
            let spent = h.transport.startedURLs.count - startedBefore
            XCTAssertLessThanOrEqual(spent, maxSpent, "\(physics.name): \(spentAre)")
        }
    }

    func testTheLandingZoneIsEstimatedFromTheSamplesWhateverThePhysics() throws {
        try checkTheLanding(announcingTarget: false, maxSpent: 40,
                            spentAre: "the landing zone and its margin, not the whole path")
    }

    func testTheTargetStartsWithinTheLeadOfTheRestWhateverThePhysics() throws {
        // The fake downloads end at once: the target's lead is its shortest, 0.3 s,
        // and the rows where the list rests still start before it slows.
        try checkTheLanding(announcingTarget: true, maxSpent: 20,
                            spentAre: "the target, its margin and the slow tail's rows, not the whole path")
    }

    func testACatchCancelsTheLandingWorkExceptDownloadsNearlyDone() throws {
        let h = try PolicyHarness(maxConcurrent: 6)
        try h.loader.setItems(PolicyHarness.urls(1_000))
        try h.loader.setVisibleRange(first: 0, count: 10)
        loadSlowly(h)
        try h.loader.setScrollState(.decelerating, velocity: 300)
        try h.loader.setVisibleRange(first: 40, count: 10)
        try h.loader.setScrollTarget(first: 300, count: 10)
        try decelerate(h, Self.hardBraking)
        XCTAssertEqual(h.transport.liveURLs, Set(urls(300..<306)))
        h.transport.setProgress(url(300), received: 80_000, expected: 100_000)
        h.transport.setProgress(url(301), received: 10_000, expected: 100_000)
        let cancelledBefore = h.stats.downloadsCancelled

        // The finger catches the list: the target is void, the list is slow.
        try h.loader.setScrollState(.dragging, velocity: 0)
        XCTAssertEqual(h.stats.downloadsCancelled - cancelledBefore, 5, "all but the nearly done one")
        XCTAssertTrue(h.transport.liveURLs.isSuperset(of: urls(40..<45)), "the rows under the finger load")
        XCTAssertTrue(h.transport.liveURLs.contains(url(300)))
        let wasted = h.stats.prefetchWasted
        XCTAssertTrue(h.transport.complete(url(300), with: .success([1, 2, 3])))
        XCTAssertEqual(h.stats.prefetchWasted - wasted, 1, "it finished into the cache, unseen")
    }

    func testAReverseFlingCancelsTheLandingWork() throws {
        let h = try PolicyHarness(maxConcurrent: 6)
        try h.loader.setItems(PolicyHarness.urls(1_000))
        try h.loader.setScrollState(.decelerating, velocity: 300)
        try h.loader.setVisibleRange(first: 500, count: 10)
        try h.loader.setScrollTarget(first: 700, count: 10)
        try decelerate(h, Self.hardBraking)
        XCTAssertEqual(h.transport.liveURLs, Set(urls(700..<706)))
        try h.loader.setScrollState(.decelerating, velocity: -300)
        XCTAssertEqual(h.transport.liveURLs, [], "flung the other way: nothing there is wanted")
        try h.loader.setScrollTarget(first: 200, count: 10)
        XCTAssertEqual(h.transport.liveURLs, [], "the new fling is not timed yet")
        try decelerate(h, Self.hardBraking.map { -$0 })
        XCTAssertEqual(h.transport.liveURLs, Set(urls(200..<206)))
    }

    func testStartsGoVisibleThenLandingThenAhead() throws {
        let h = try PolicyHarness(maxConcurrent: 1, prefetchRows: 2)
        try h.loader.setItems(PolicyHarness.urls(100))
        try h.loader.setVisibleRange(first: 10, count: 4)
        XCTAssertEqual(h.transport.liveURLs, [url(10)], "at rest, one slot")
        // Slow (2 rows/s < 4), with the toolkit's target: loads as at rest, but for
        // the row it leaves within half a second (10, started already).
        try h.loader.setScrollState(.decelerating, velocity: 2)
        try h.loader.setScrollTarget(first: 40, count: 4)
        while let next = h.transport.liveURLs.first {
            h.clock.advance(by: 100)
            h.transport.complete(next, with: .success([1]))
        }
        // The margin is on the side the list comes from; ahead, half a second at 2
        // rows/s is less than the 2 rows configured.
        XCTAssertEqual(h.transport.startedURLs, urls([10, 11, 12, 13, 40, 41, 42, 43, 39, 14, 15]))
    }

    func testDownloadsLeavingTheWindowStopUnlessNearlyDone() throws {
        let h = try PolicyHarness(maxConcurrent: 6)
        try h.loader.setItems(PolicyHarness.urls(100))
        try h.loader.setVisibleRange(first: 0, count: 5)
        XCTAssertEqual(h.transport.liveURLs, Set(urls(0..<5)))
        h.transport.setProgress(url(0), received: 75_000, expected: 100_000)  // 75 %
        h.transport.setProgress(url(1), received: 1_000_000, expected: 1_016_384)  // 16 KiB left
        h.transport.setProgress(url(2), received: 70_000, expected: 100_000)
        h.transport.setProgress(url(3), received: 5_000_000, expected: nil)  // size unknown
        try h.loader.setVisibleRange(first: 50, count: 5)
        XCTAssertEqual(h.stats.downloadsCancelled, 3)
        XCTAssertEqual(h.transport.liveURLs, Set(urls([0, 1]) + urls(50..<54)), "and row 54 waits for a slot")
        h.transport.complete(url(0), with: .success([1]))
        XCTAssertTrue(h.transport.liveURLs.contains(url(54)), "the slot it held is free again")
    }

    func testPrefetchStopsAtTheWasteBudgetButVisibleRowsDoNot() throws {
        let h = try PolicyHarness(maxConcurrent: 1, prefetchRows: 10) { $0.prefetchWasteBytes = 10 }
        try h.loader.setItems(PolicyHarness.urls(100))
        try h.loader.setVisibleRange(first: 0, count: 2)
        _ = try h.loader.request(row: 0)
        _ = try h.loader.request(row: 1)
        completeAll(h, bytes: [1, 2, 3, 4])
        XCTAssertEqual(h.transport.startedURLs, urls(0..<5), "rows 2-4: 12 unseen bytes, over the budget of 10")
        h.deliver(until: 2)

        // From memory, or joining the job if its decode has not finished yet.
        if let ticket = try h.loader.request(row: 2).ticket {
            h.deliver(until: 3)
            XCTAssertNotNil(h.log.events(for: ticket).first?.image)
        }
        XCTAssertEqual(h.stats.prefetchHits, 1)
        XCTAssertEqual(h.transport.liveURLs, [url(5)], "8 unseen bytes: room again")
        completeAll(h, bytes: [1, 2, 3, 4])
        XCTAssertEqual(h.transport.startedURLs.count, 6)

        try h.loader.setVisibleRange(first: 50, count: 2)
        XCTAssertEqual(h.stats.prefetchWasted, 3, "rows 3-5 left unseen")
        XCTAssertEqual(h.stats.prefetchWasteBytes, 12)
        XCTAssertEqual(h.transport.liveURLs, [url(50)], "the budget is free again; visible rows first")
    }

    func testVisibleRowsStartPastTheWasteBudget() throws {
        let h = try PolicyHarness(maxConcurrent: 4, prefetchRows: 10) { $0.prefetchWasteBytes = 1 }
        try h.loader.setItems(PolicyHarness.urls(100))
        try h.loader.setVisibleRange(first: 0, count: 1)
        completeAll(h, bytes: [1, 2])
        XCTAssertEqual(h.transport.startedURLs.count, 4, "row 0 and three rows ahead in flight at once")
        try h.loader.setVisibleRange(first: 2, count: 3)
        XCTAssertEqual(h.transport.liveURLs, Set(urls(4..<5)), "visible row 4 starts; rows 5... wait")
    }

    func testRapidReversalsArePaced() throws {
        let h = try PolicyHarness(maxConcurrent: 6, prefetchRows: nil)
        try h.loader.setItems(PolicyHarness.urls(1_000))
        try h.loader.setVisibleRange(first: 500, count: 10)
        completeAll(h)
        let before = h.transport.startedURLs.count
        // A second of a finger shaking the list up and down by a row, slower than the
        // slow-scroll speed: each turn re-aims the prefetch window.
        for frame in 0..<60 {
            h.clock.advance(by: 16)
            let up = frame % 2 == 0
            try h.loader.setScrollState(.dragging, velocity: up ? -8 : 8)
            try h.loader.setVisibleRange(first: up ? 499 : 500, count: 10)
            // Each frame its own step, as 16 ms apart they are.
            h.settle()
        }
        let started = h.transport.startedURLs.count - before
        // A burst of a screen plus the slots, then two screens a second.
        XCTAssertLessThanOrEqual(started, 16 + 20 + 1)
        XCTAssertGreaterThan(h.transport.cancelledCount, 0, "the churn was real")
        try h.loader.setScrollState(.idle, velocity: 0)
        try h.loader.setVisibleRange(first: 800, count: 10)
        XCTAssertEqual(h.transport.liveURLs, Set(urls(800..<806)), "at rest nothing is paced")
    }

    func testARequestOutsideTheWindowRunsInArrivalOrderUntilTheViewMoves() throws {
        let h = try PolicyHarness(maxConcurrent: 6)
        try h.loader.setItems(PolicyHarness.urls(100))
        try h.loader.setVisibleRange(first: 0, count: 5)
        let stray = try XCTUnwrap(h.loader.request(row: 50).ticket)
        XCTAssertEqual(h.transport.liveURLs, Set(urls(0..<5) + [url(50)]), "a free slot at rest: it runs")
        try h.loader.setVisibleRange(first: 1, count: 5)
        h.deliver(until: 1)
        XCTAssertEqual(h.log.events(for: stray).map(\.error), [.cancelled], "the view moved and still does not show it")
        XCTAssertFalse(h.transport.liveURLs.contains(url(50)))
    }

    func testAVisibleRangeLargerThan512RowsLoadsAllOfIt() throws {
        let h = try PolicyHarness(maxConcurrent: 64)
        try h.loader.setItems(PolicyHarness.urls(3_000))
        try h.loader.setVisibleRange(first: 1_000, count: 1_500)
        completeAll(h)
        XCTAssertEqual(h.transport.startedURLs, urls(1_000..<2_500))
    }
}
#endif
