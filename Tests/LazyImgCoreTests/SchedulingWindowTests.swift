#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_3 // ThreadSanitizer group 3 (see the Makefile's tsan)
import Glibc
import XCTest
@testable import LazyImgCore

/// The view model: windows, ranks, the row set the pump queries, and the decay fit.
final class SchedulingWindowTests: XCTestCase {
    private func view(prefetchRows: Int? = nil, rows: Int = 1_000) -> ViewState {
        var view = ViewState(prefetchRows: prefetchRows)
        view.rowCount = rows
        return view
    }

    func testPrefetchIsWhatTheFastestSlowMotionTravelsInTheLookahead() {
        var view = view()
        XCTAssertTrue(view.window().wants(1_000_000), "no visible range yet: everything is wanted")
        view.setVisible(10..<20)
        XCTAssertEqual(view.window().ahead, 20..<25, "half a second at one screen a second, forward by default")
        view.setVisible(10..<21)
        XCTAssertEqual(view.window().ahead, 21..<26, "a row cut at the edge does not move the far end")
        view.setVisible(7..<17)
        XCTAssertEqual(view.window().ahead, 2..<7, "moved up: the window is above")
        view.setVisible(3..<13)
        XCTAssertEqual(view.window().ahead, 0..<3, "clamped at 0")
        view.setScroll(.dragging, velocity: 4, now: 0)
        XCTAssertEqual(view.window().ahead, 13..<18, "velocity sets direction")
        view.setScroll(.idle, velocity: 0, now: 0)
        XCTAssertEqual(view.window().ahead, 13..<18, "zero velocity keeps the direction")
        XCTAssertTrue(view.window().wants(17))
        XCTAssertFalse(view.window().wants(2))
        XCTAssertFalse(view.window().wants(18))

        var faster = ViewState(prefetchRows: nil, slowRowsPerSecond: 30)
        faster.rowCount = 100
        faster.setVisible(0..<10)
        XCTAssertEqual(faster.window().ahead, 10..<25, "a slow speed of 30 rows/s: 15 rows")
        var none = ViewState(prefetchRows: 0)
        none.rowCount = 100
        none.setVisible(0..<10)
        none.setScroll(.dragging, velocity: 8, now: 0)
        XCTAssertEqual(none.window().ahead.count, 0, "prefetch_rows 0: none, whatever the speed")
    }

    func testPrefetchCoversTheLookaheadAtThePresentSpeedUpToACap() {
        var view = ViewState(prefetchRows: 4, slowRowsPerSecond: 50)
        view.rowCount = 1_000
        view.setVisible(0..<10)
        view.setScroll(.dragging, velocity: 6, now: 0)
        XCTAssertEqual(view.window().ahead, 10..<14, "3 rows in half a second: the 4 configured, not 4 + 3")
        view.setScroll(.dragging, velocity: 20, now: 0)
        XCTAssertEqual(view.window().ahead, 10..<20, "10 rows in half a second")
        view.setScroll(.dragging, velocity: 49, now: 0)
        XCTAssertEqual(view.window().ahead, 10..<26, "at most four times the configured rows")
    }

    func testAFastMotionEmptiesThePrefetchWindowUntilASlowDrag() {
        var view = view()
        view.setVisible(20..<30)
        XCTAssertEqual(view.window().ahead, 30..<35, "before any motion: prefetch")
        view.setScroll(.dragging, velocity: 300, now: 0)
        XCTAssertEqual(view.window().ahead.count, 0, "a fling: nothing ahead")
        view.setScroll(.decelerating, velocity: 5, now: 16)
        XCTAssertEqual(view.window().motion, .settled, "its slow tail loads the visible rows...")
        XCTAssertEqual(view.window().ahead.count, 0, "...but nothing ahead")
        view.setScroll(.idle, velocity: 0, now: 32)
        XCTAssertEqual(view.window().ahead.count, 0, "nor at rest after it")
        view.setScroll(.dragging, velocity: -3, now: 48)
        XCTAssertEqual(view.window().ahead, 15..<20, "a slow drag (up): prefetch again")
        view.setScroll(.idle, velocity: 0, now: 64)
        XCTAssertEqual(view.window().ahead, 15..<20, "and at rest after it")
        view.setScroll(.decelerating, velocity: -40, now: 80)
        view.setScroll(.dragging, velocity: 0, now: 96)
        XCTAssertEqual(view.window().ahead.count, 0, "a finger catching a fling: not reading yet")
        view.setScroll(.dragging, velocity: 0, now: 96 + ReadingSignal.catchHoldMilliseconds)
        XCTAssertEqual(view.window().ahead, 15..<20, "holding the list a reaction time: the user reads")
    }

    func testACatchIsReadingOnlyOnceItHeldTheListSlowLongEnough() {
        let hold = ReadingSignal.catchHoldMilliseconds
        var view = view()
        view.setVisible(20..<30)
        // Caught and let go at once: the fling ended, nothing ahead at rest.
        view.setScroll(.decelerating, velocity: 40, now: 0)
        view.setScroll(.dragging, velocity: 0, now: 16)
        view.setScroll(.idle, velocity: 0, now: 16 + hold - 1)
        XCTAssertEqual(view.window().ahead.count, 0, "let go before a reaction time: the fling ended")
        XCTAssertTrue(view.repeatsChangeNothing, "at rest nothing waits on the clock")
        // Caught, then one report at the lift (a host that reports only changes).
        view.setScroll(.decelerating, velocity: 40, now: 1_000)
        view.setScroll(.dragging, velocity: 0, now: 1_016)
        view.setScroll(.idle, velocity: 0, now: 1_016 + hold)
        XCTAssertEqual(view.window().ahead, 30..<35, "held as long, then let go: reading")
        // Caught, dragged slowly, released slowly: the hold goes on through the glide.
        view.setScroll(.decelerating, velocity: 40, now: 2_000)
        view.setScroll(.dragging, velocity: 3, now: 2_016)
        view.setScroll(.decelerating, velocity: 2, now: 2_016 + hold / 2)
        XCTAssertEqual(view.window().ahead.count, 0)
        view.setScroll(.decelerating, velocity: 1, now: 2_016 + hold)
        XCTAssertEqual(view.window().ahead, 30..<35, "slow for a reaction time since the catch: reading")
        // Caught and flung back before the hold was long enough.
        view.setScroll(.decelerating, velocity: 40, now: 3_000)
        view.setScroll(.dragging, velocity: 0, now: 3_016)
        view.setScroll(.dragging, velocity: -40, now: 3_016 + hold - 16)
        view.setScroll(.dragging, velocity: 0, now: 3_016 + hold)
        XCTAssertEqual(view.window().ahead.count, 0, "the fling back started the hold over")
        // A fling's own slow tail, with no touch, is not a hold.
        view.setScroll(.decelerating, velocity: 40, now: 4_000)
        view.setScroll(.decelerating, velocity: 5, now: 4_016)
        view.setScroll(.decelerating, velocity: 1, now: 4_016 + hold)
        XCTAssertEqual(view.window().ahead.count, 0, "nothing ahead in a fling's slow tail")
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
        // Slow for a slow-scroll speed of 200 rows/s, so the window has every tier.
        var view = ViewState(prefetchRows: 3, slowRowsPerSecond: 200)
        view.rowCount = 1_000
        view.setVisible(10..<12)
        view.setScroll(.decelerating, velocity: 100, now: 0)
        view.setTarget(40..<42)
        let window = view.window()
        XCTAssertEqual(window.motion, .settled)
        XCTAssertEqual(window.rest, 40..<42)
        XCTAssertEqual(window.landing, 39..<42, "a margin of a quarter screen, at least one row, on the side it comes from")
        let order = [30, 13, 11, 39, 40, 12, 0, 10, 14, 41, 42, 60].sorted { window.rank(of: $0) < window.rank(of: $1) }
        XCTAssertEqual(order, [10, 11, 40, 41, 39, 12, 13, 14, 0, 30, 42, 60])
    }

    /// Four frames 16 ms apart of a fling braking hard (x0.88 a frame), timed by the
    /// view's clock from `start` ms; fast for a screen of 10.
    private func brake(_ view: inout ViewState, from start: Int64 = 0, sign: Double = 1) {
        for (frame, speed) in [250.0, 220, 194, 170].enumerated() {
            view.setScroll(.decelerating, velocity: sign * speed, now: start + 16 * Int64(frame))
        }
    }

    /// A UIKit fling (x0.998 a ms) from 400 rows/s toward the toolkit's target: how
    /// long before its rest (at 20 rows/s) the view first has a landing zone, with
    /// the target's lead at `lead` seconds. Checks that nothing is due over 70 rows/s,
    /// and the zone once due.
    private func secondsLeftWhenTheTargetIsDue(lead: Double, file: StaticString = #filePath,
                                              line: UInt = #line) -> Double {
        // 400 rows/s takes 1.5 s to stop at 20 rows/s, ~187 rows on.
        var rest = 0.0, speed = 400.0
        while speed * pow(0.998, 16) >= 20 {
            speed *= pow(0.998, 16)
            rest += speed * 0.016
        }
        let target = Int(rest)
        var view = view()
        view.targetLeadSeconds = lead
        view.setVisible(0..<10)
        view.setScroll(.decelerating, velocity: 400, now: 0)
        view.setTarget(target..<target + 10)
        XCTAssertEqual(view.window().motion, .flying, "just released: where, not yet when", file: file, line: line)
        var now: Int64 = 0, position = 0.0
        speed = 400
        while view.window().landing.isEmpty && speed > 20 {
            now += 16
            speed *= pow(0.998, 16)
            position += speed * 0.016
            view.setScroll(.decelerating, velocity: speed, now: now)
            view.setVisible(Int(position)..<Int(position) + 10)
        }
        XCTAssertLessThanOrEqual(speed, 70, "first due \(now) ms in, at \(Int(speed)) rows/s", file: file, line: line)
        XCTAssertEqual(view.window().motion, .landing, file: file, line: line)
        XCTAssertEqual(view.window().landing, target - 2..<target + 10,
                       "the target and two rows on the side the list comes from", file: file, line: line)
        // It stops at 20 rows/s: ln(speed / 20) / 2 seconds from now.
        return log(speed / 20) / 2
    }

    func testTheTargetIsDueOnlyWhenTheFittedDecayBringsTheRestWithinTheLead() {
        let left = secondsLeftWhenTheTargetIsDue(lead: ViewState.landingLeadSeconds)
        XCTAssertGreaterThan(left, 0.4, "due about half a second before the rest")
        XCTAssertLessThanOrEqual(left, 0.55)
    }

    func testATargetOnceDueStaysDueForTheRestOfItsFling() {
        var view = view()
        view.setVisible(0..<10)
        var now: Int64 = 0
        for speed in [250.0, 220, 194, 170] {  // braking x0.88 a frame: 0.35 s from slow
            now += 16
            view.setScroll(.decelerating, velocity: speed, now: now)
        }
        view.setTarget(300..<310)
        XCTAssertEqual(view.window().landing, 298..<310, "due within half a second")
        // The downloads shorten the lead, and the fit then sees the list brake less.
        view.targetLeadSeconds = 0.3
        view.setTarget(300..<310)
        XCTAssertEqual(view.window().landing, 298..<310, "the same target again is no new fling")
        for speed in [165.0, 162, 160] {
            now += 16
            view.setScroll(.decelerating, velocity: speed, now: now)
            view.setVisible(Int(now / 16)..<Int(now / 16) + 10)
            XCTAssertEqual(view.window().landing, 298..<310, "at \(Int(speed)) rows/s it stays due")
        }
        var fresh = self.view()
        fresh.targetLeadSeconds = 0.3
        fresh.setVisible(0..<10)
        for (frame, speed) in [250.0, 220, 194, 170, 165, 162, 160].enumerated() {
            fresh.setScroll(.decelerating, velocity: speed, now: 16 * Int64(frame + 1))
        }
        fresh.setTarget(300..<310)
        XCTAssertTrue(fresh.window().landing.isEmpty, "the same fling, timed afresh: not due")

        view.setTarget(400..<410)
        XCTAssertTrue(view.window().landing.isEmpty, "a new target is timed afresh")
        view.setTarget(300..<310)
        XCTAssertTrue(view.window().landing.isEmpty, "and so is the old one back")
    }

    func testTheTargetIsDueThatMuchLaterWithAShorterLead() {
        // What the scheduler sets once its downloads took at most 150 ms.
        let left = secondsLeftWhenTheTargetIsDue(lead: 0.3)
        XCTAssertGreaterThan(left, 0.24, "due about 0.3 s before the rest")
        XCTAssertLessThanOrEqual(left, 0.33)
    }

    func testTheLandingZoneStaysWantedFromIdleUntilTheFinalRange() {
        var view = view()
        view.setVisible(280..<290)
        view.setScroll(.decelerating, velocity: 5, now: 0)
        view.setTarget(300..<310)
        XCTAssertEqual(view.window().landing, 298..<310)
        // A UI reports IDLE, then the range where the list came to rest.
        view.setScroll(.idle, velocity: 0, now: 16)
        XCTAssertNil(view.target)
        XCTAssertEqual(view.window().landing, 298..<310, "still wanted: the final range is not known yet")
        XCTAssertEqual(view.window().rest, 300..<310)
        view.setVisible(300..<310)
        XCTAssertTrue(view.window().landing.isEmpty, "the list rests where it rests")
    }

    func testOnlyTheTargetHoldsBackTheVisibleRowsASlowingListLeaves() {
        var view = view()
        view.setVisible(0..<10)
        var now: Int64 = 0
        for speed in [9.0, 8, 7, 6, 5] {
            now += 16
            view.setScroll(.decelerating, velocity: speed, now: now)
        }
        view.setVisible(2..<12)
        XCTAssertEqual(view.window().motion, .settled, "slower than a screen a second")
        XCTAssertEqual(view.window().query(at: 0)?.rows, 2..<12)
        view.setTarget(6..<16)
        XCTAssertEqual(view.window().landing, 4..<16)
        XCTAssertEqual(view.window().passing, 2..<4)
        XCTAssertEqual(view.window().query(at: 0)?.rows, 4..<12, "rows 2 and 3 leave before the list rests")
        view.setTarget(40..<50)
        XCTAssertEqual(view.window().query(at: 0)?.rows, 5..<12,
                       "far away, only the rows it leaves within half a second at 5 rows/s")
        view.setScroll(.idle, velocity: 0, now: now + 16)
        XCTAssertEqual(view.window().query(at: 0)?.rows, 2..<12, "at rest every visible row loads")

        // With the lead of a fast network, the rows it leaves within 0.3 s.
        var shorter = self.view()
        shorter.targetLeadSeconds = 0.3
        shorter.setVisible(0..<10)
        now = 0
        for speed in [9.0, 8, 7, 6, 5] {
            now += 16
            shorter.setScroll(.decelerating, velocity: speed, now: now)
        }
        shorter.setVisible(2..<12)
        shorter.setTarget(40..<50)
        XCTAssertEqual(shorter.window().query(at: 0)?.rows, 4..<12)

        // Forty rows on screen, slowing from 39 to 32 rows a second: the estimate's
        // zone starts four rows past the top, which the list would leave within
        // half a second, and holds them all the same.
        var estimated = self.view()
        estimated.setVisible(0..<40)
        now = 0
        for speed in stride(from: 39.0, through: 32, by: -1) {
            now += 16
            estimated.setScroll(.decelerating, velocity: speed, now: now)
        }
        estimated.setVisible(2..<42)
        XCTAssertEqual(estimated.window().motion, .settled)
        XCTAssertGreaterThan(estimated.window().landing.lowerBound, 2, "the estimate's zone is due, past the top rows")
        XCTAssertTrue(estimated.window().passing.isEmpty, "the estimate's zone may be off by the rows it would hold")
        XCTAssertEqual(estimated.window().query(at: 0)?.rows, 2..<42)
    }

    func testThePassingRowsAreAtTheEdgeTheListLeavesBy() {
        XCTAssertEqual(ViewState.passing(10..<20, landing: 14..<24, direction: .forward, rows: 6), 10..<14)
        XCTAssertEqual(ViewState.passing(10..<20, landing: 14..<24, direction: .forward, rows: 2), 10..<12)
        XCTAssertEqual(ViewState.passing(10..<20, landing: 4..<16, direction: .backward, rows: 6), 16..<20)
        XCTAssertEqual(ViewState.passing(10..<20, landing: 4..<16, direction: .backward, rows: 1), 19..<20)
        XCTAssertEqual(ViewState.passing(10..<20, landing: 8..<22, direction: .forward, rows: 5), 10..<10,
                       "the zone covers the screen: nothing leaves")
        XCTAssertEqual(ViewState.passing(10..<20, landing: 30..<40, direction: .forward, rows: 50), 10..<20)
        // Half a second of travel, the edge row counted half gone, at most a screen.
        XCTAssertEqual(ViewState.rowsLeaving(speed: 8, screen: 8, leadSeconds: 0.5), 4)
        XCTAssertEqual(ViewState.rowsLeaving(speed: 3, screen: 4, leadSeconds: 0.5), 2, "the second row leaves at 0.5 s")
        XCTAssertEqual(ViewState.rowsLeaving(speed: 3, screen: 4, leadSeconds: 0.3), 1, "...after 0.3 s")
        XCTAssertEqual(ViewState.rowsLeaving(speed: 0.4, screen: 4, leadSeconds: 0.5), 0)
        XCTAssertEqual(ViewState.rowsLeaving(speed: 1e300, screen: 4, leadSeconds: 0.5), 4)
        XCTAssertEqual(ViewState.rowsLeaving(speed: .nan, screen: 4, leadSeconds: 0.5), 0)
    }

    func testSamplesAtASteadySpeedTimeTheTargetAtThatSpeed() {
        var view = view()
        view.setVisible(0..<10)
        for frame in 0..<4 { view.setScroll(.decelerating, velocity: 100, now: 16 * Int64(frame)) }
        view.setTarget(200..<210)
        XCTAssertTrue(view.window().landing.isEmpty, "two seconds away at 100 rows/s")
        view.setVisible(150..<160)
        XCTAssertEqual(view.window().landing, 198..<210, "half a second away")
    }

    func testTheTargetWaitsForSamplesSpanningThreeFrames() {
        var view = view()
        view.setVisible(0..<10)
        // Frames run late back to back: three samples in one millisecond.
        for _ in 0..<3 { view.setScroll(.decelerating, velocity: 100, now: 5) }
        view.setTarget(20..<30)
        XCTAssertTrue(view.window().landing.isEmpty, "0.2 s away at 100 rows/s, but the samples span no time")
        view.setScroll(.decelerating, velocity: 100, now: 60)
        XCTAssertEqual(view.window().landing, 18..<30)
        var braking = self.view()
        braking.setVisible(500..<510)
        brake(&braking, sign: -1)
        braking.setTarget(300..<310)
        XCTAssertEqual(braking.window().landing, 300..<312, "travelling up, it comes from the rows after the target")
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
        XCTAssertTrue(window.rank(of: 0) > window.rank(of: Int.max - 1))
        // Slow for its slow-scroll speed: prefetch as far as the rows go; a target due
        // from samples at a steady, huge speed.
        var slow = ViewState(prefetchRows: Int.max, slowRowsPerSecond: .greatestFiniteMagnitude)
        slow.rowCount = Int.max
        slow.setVisible(Int.max - 10..<Int.max - 1)
        for frame in 0..<4 { slow.setScroll(.decelerating, velocity: 1e300, now: 16 * Int64(frame)) }
        slow.setTarget(Int.max - 5..<Int.max)
        XCTAssertEqual(slow.window().ahead.upperBound, Int.max)
        XCTAssertEqual(slow.window().landing, Int.max - 7..<Int.max)
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

    func testTheFitSpansTheLastQuarterSecondAtAnyRate() throws {
        // Half a second at a steady 200 rows/s, then a decay of rate 4 for 0.3 s:
        // a quarter second of samples sees only the decay. (Sixteen samples at 30 Hz
        // spanned half a second and mixed the steady part in.)
        for hz in [30.0, 60, 144, 240] {
            var fit = DecelerationFit()
            let frames = Int((0.8 * hz).rounded())
            for frame in 0...frames {
                let t = Double(frame) / hz
                fit.add(milliseconds: 50_000 + Int64((t * 1000).rounded()), speed: t < 0.5 ? 200 : 200 * exp(-4 * (t - 0.5)))
            }
            let remainder = try XCTUnwrap(fit.remainder(stopSpeed: 0, dueSpeed: 10), "\(hz) Hz")
            guard case .exponential(_, let rate) = remainder.curve else { return XCTFail("\(hz) Hz: \(remainder.curve)") }
            XCTAssertEqual(rate, 4, accuracy: 0.1, "\(hz) Hz")
        }
    }

    func testTheFitKeepsTheExponentialUnlessTheLinearOneIsDecisivelyBetter() throws {
        // The first four frames of a UIKit fling (x0.998 a ms) as a loaded machine
        // called: 16, 19 and 14 ms apart. A line fits them a little better (0.47
        // against 0.55), and would stop the list in 0.4 s instead of 1.1.
        var fit = DecelerationFit()
        for (milliseconds, speed) in [(151, 193.437), (167, 187.089), (186, 180.949), (200, 175.011)] {
            fit.add(milliseconds: 12_658_000 + Int64(milliseconds), speed: speed)
        }
        let remainder = try XCTUnwrap(fit.remainder(stopSpeed: 20, dueSpeed: 20))
        XCTAssertEqual(remainder.seconds, log(175.0 / 20) / 2, accuracy: 0.05)
        XCTAssertEqual(remainder.rows, (175.0 - 20) / 2, accuracy: 3)
        guard case .exponential = remainder.curve else { return XCTFail("\(remainder.curve)") }
    }

    func testADistanceIsTimedByTheLaterOfTheTwoCurves() throws {
        // Constant braking, v = 200 - 300t, sampled exactly over four frames: from the
        // last, w^2 / 2a rows to a stop in w / a seconds. The exponential through the
        // samples would cover those rows in ln 2 of that.
        let braking = try XCTUnwrap(fit({ 200 - 300 * $0 }, frames: 4).remainder(stopSpeed: 0, dueSpeed: 0))
        let w = 200 - 300 * 0.048
        XCTAssertEqual(braking.secondsToRest(travelling: w * w / 600 - 0.01, orSlowingTo: 0), w / 300, accuracy: 0.02)
        // The jittered UIKit start: the line through it would be due in 0.4 s.
        var jittered = DecelerationFit()
        for (milliseconds, speed) in [(151, 193.437), (167, 187.089), (186, 180.949), (200, 175.011)] {
            jittered.add(milliseconds: 12_658_000 + Int64(milliseconds), speed: speed)
        }
        let uikit = try XCTUnwrap(jittered.remainder(stopSpeed: 20, dueSpeed: 20))
        XCTAssertEqual(uikit.secondsToRest(travelling: (175 - 20) / 2, orSlowingTo: 20), log(175.0 / 20) / 2, accuracy: 0.1)
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
