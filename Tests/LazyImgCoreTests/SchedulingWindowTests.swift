#if !LAZYIMG_ASAN_SUBSET && !LAZYIMG_TSAN_SUBSET && !LAZYIMG_TSAN_SUBSET_2 // ThreadSanitizer group 3 (see the Makefile's tsan)
import XCTest
@testable import LazyImgCore

/// The view model: windows, ranks, the row set the pump queries, and the decay fit.
final class SchedulingWindowTests: XCTestCase {
    private func view(prefetchRows: Int? = nil, rows: Int = 1_000) -> ViewState {
        var view = ViewState(prefetchRows: prefetchRows)
        view.rowCount = rows
        return view
    }

    func testPrefetchLiesAheadAndGrowsWithSpeedUpToACap() {
        var view = view()
        XCTAssertTrue(view.window().wants(1_000_000), "no visible range yet: everything is wanted")
        view.setVisible(10..<20)
        XCTAssertEqual(view.window().ahead, 20..<30, "one screen, forward by default")
        view.setVisible(5..<15)
        XCTAssertEqual(view.window().ahead, 0..<5, "moved up: window above, clamped at 0")
        view.setScroll(.dragging, velocity: 12, now: 0)
        XCTAssertEqual(view.window().ahead, 15..<31, "velocity sets direction; 12 rows/s adds 6 rows")
        view.setScroll(.dragging, velocity: 1e300, now: 0)
        XCTAssertEqual(view.window().ahead, 15..<55, "at most four screens")
        view.setScroll(.idle, velocity: 0, now: 0)
        XCTAssertEqual(view.window().ahead, 15..<25, "zero velocity keeps the direction")
        XCTAssertTrue(view.window().wants(24))
        XCTAssertFalse(view.window().wants(4))
        XCTAssertFalse(view.window().wants(25))
    }

    func testTheSlowScrollSpeedDecidesBetweenLoadingAndHolding() {
        var view = view()
        view.setVisible(0..<10)
        view.setScroll(.dragging, velocity: 9.9, now: 0)
        XCTAssertEqual(view.window().motion, .settled, "under one screen per second")
        view.setScroll(.dragging, velocity: -10, now: 0)
        XCTAssertEqual(view.window().motion, .flying)
        var configured = ViewState(prefetchRows: nil, slowRowsPerSecond: 50)
        configured.rowCount = 100
        configured.setVisible(0..<10)
        configured.setScroll(.decelerating, velocity: 49, now: 0)
        XCTAssertEqual(configured.window().motion, .settled)
    }

    func testRankPutsVisibleRowsFirstThenTheLandingZoneThenAheadThenTheRest() {
        var view = view(prefetchRows: 3)
        view.setVisible(10..<12)
        view.setScroll(.decelerating, velocity: 100, now: 0)
        view.setTarget(40..<42)
        let window = view.window()
        XCTAssertEqual(window.motion, .landing)
        XCTAssertEqual(window.rest, 40..<42)
        XCTAssertEqual(window.landing, 39..<43, "a margin of a quarter screen, at least one row")
        let order = [30, 13, 11, 39, 40, 12, 0, 10, 14, 41, 60].sorted { window.rank(of: $0) < window.rank(of: $1) }
        XCTAssertEqual(order, [10, 11, 40, 41, 39, 12, 13, 14, 0, 30, 60])
    }

    func testATouchAReversalOrRestVoidsTheTarget() {
        var view = view()
        view.setVisible(0..<10)
        view.setScroll(.dragging, velocity: 100, now: 0)
        view.setTarget(500..<510)
        view.setScroll(.dragging, velocity: 100, now: 16)
        XCTAssertEqual(view.target, 500..<510, "the same drag goes on: the toolkit's last drag frame")
        view.setScroll(.decelerating, velocity: 90, now: 32)
        XCTAssertEqual(view.target, 500..<510)
        view.setScroll(.decelerating, velocity: -90, now: 48)
        XCTAssertNil(view.target, "a reverse fling")
        view.setTarget(0..<10)
        view.setScroll(.dragging, velocity: -5, now: 64)
        XCTAssertNil(view.target, "a catch")
        view.setTarget(0..<10)
        view.setScroll(.idle, velocity: 0, now: 80)
        XCTAssertNil(view.target, "at rest")
    }

    func testHugeRangesDoNotOverflow() {
        var view = ViewState(prefetchRows: Int.max)
        view.rowCount = Int.max
        view.setVisible(Int.max - 1..<Int.max)
        view.setScroll(.decelerating, velocity: .infinity, now: 0)
        view.setTarget(Int.max - 5..<Int.max)
        let window = view.window()
        XCTAssertEqual(window.ahead.upperBound, Int.max)
        XCTAssertTrue(window.rank(of: 0) > window.rank(of: Int.max - 1))
    }

    // MARK: The row set

    func testRowSetFindsTheFirstAndLastMemberOfARangeLikeASortedSet() {
        var rng = SplitMix(seed: 7)
        var set = RowSet()
        var reference = Set<Int>()
        for _ in 0..<1_000 {
            let row = Int(rng.next() % 300_000)
            switch rng.next() % 3 {
            case 0: set.remove(row); reference.remove(row)
            case 1:
                let count = Int(rng.next() % 100)
                set.insert(row..<row + count)
                reference.formUnion(row..<row + count)
            default: set.insert(row); reference.insert(row)
            }
            let lower = Int(rng.next() % 300_000)
            let range = lower..<lower + Int(rng.next() % 20_000)
            let members = reference.filter { range.contains($0) }
            XCTAssertEqual(set.first(in: range), members.min())
            XCTAssertEqual(set.last(in: range), members.max())
            XCTAssertEqual(set.contains(row), reference.contains(row))
        }
        set.removeAll()
        XCTAssertNil(set.first(in: 0..<Int.max))
        XCTAssertNil(set.last(in: 0..<Int.max))
    }

    func testTheRunsBetweenTwoWindowsAreTheRowsThatLeftAndEntered() {
        func window(_ visible: Range<Int>?, landing: Range<Int> = 0..<0, ahead: Range<Int> = 0..<0) -> SchedulingWindow {
            var window = SchedulingWindow()
            window.visible = visible
            window.landing = landing
            window.ahead = ahead
            return window
        }
        func runs(_ a: SchedulingWindow, notIn b: SchedulingWindow) -> [Range<Int>] {
            var runs: [Range<Int>] = []
            a.forEachRun(notIn: b) { runs.append($0) }
            return runs
        }
        let old = window(10..<20, ahead: 18..<30)
        let new = window(15..<25, landing: 40..<44, ahead: 25..<27)
        XCTAssertEqual(runs(old, notIn: new), [10..<15, 27..<30], "left")
        XCTAssertEqual(runs(new, notIn: old), [40..<44], "entered")
        XCTAssertEqual(runs(window(0..<6, ahead: 5..<8), notIn: window(nil)), [0..<8], "all of it after no geometry")
        XCTAssertEqual(runs(window(10..<20), notIn: window(0..<100)), [])
        XCTAssertEqual(runs(window(10..<20), notIn: window(12..<14, landing: 16..<17)), [10..<12, 14..<16, 17..<20])
    }

    // MARK: The decay fit

    /// Samples every 16 ms of a speed that decays as `speed(t)`.
    private func fit(_ speed: (Double) -> Double, frames: Int) -> DecelerationFit {
        var fit = DecelerationFit()
        for frame in 0..<frames { fit.add(milliseconds: Int64(frame * 16), speed: speed(Double(frame) * 0.016)) }
        return fit
    }

    func testTheFitFindsTheRestOfAnExponentialAndOfALinearDecay() throws {
        // v = 200 e^(-2t): 100 rows left from 200 rows/s, 50 at the last sample here.
        let exponential = fit({ 200 * exp(-2 * $0) }, frames: 44)
        let v = 200 * exp(-2 * 0.688)
        let e = try XCTUnwrap(exponential.remainder(stopSpeed: 0, dueSpeed: 10))
        XCTAssertEqual(e.rows, v / 2, accuracy: 0.5)
        XCTAssertEqual(e.seconds, log(v / 10) / 2, accuracy: 0.01)
        let stopping = try XCTUnwrap(exponential.remainder(stopSpeed: 25, dueSpeed: 25))
        XCTAssertEqual(stopping.rows, (v - 25) / 2, accuracy: 0.5, "a list that stops at 25 rows/s")

        // v = 200 - 300t (constant braking): v^2 / 2a rows left.
        let linear = fit({ 200 - 300 * $0 }, frames: 20)
        let w = 200 - 300 * 0.304
        let l = try XCTUnwrap(linear.remainder(stopSpeed: 0, dueSpeed: 0))
        XCTAssertEqual(l.rows, w * w / 600, accuracy: 0.5)
        XCTAssertEqual(l.seconds, w / 300, accuracy: 0.01)
    }

    func testTheFitWaitsForADecay() {
        XCTAssertNil(fit({ _ in 100 }, frames: 10).remainder(stopSpeed: 0, dueSpeed: 0), "not slowing")
        XCTAssertNil(fit({ 100 - $0 }, frames: 2).remainder(stopSpeed: 0, dueSpeed: 0), "two samples")
        var sameInstant = DecelerationFit()
        for speed in [100.0, 90, 80] { sameInstant.add(milliseconds: 5, speed: speed) }
        XCTAssertNil(sameInstant.remainder(stopSpeed: 0, dueSpeed: 0))
    }
}
#endif
