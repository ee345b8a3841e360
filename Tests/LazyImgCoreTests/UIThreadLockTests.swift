#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_5 // ThreadSanitizer group 5 (see the Makefile's tsan)
import Synchronization
import TestSupport
import XCTest
@testable import LazyImgCore

#if DEBUG  // LockProbe counts in debug builds only

/// The calls a UI makes every frame to report its view take no lock at all, so
/// none that a background thread holds (issue 19, A): counted by the debug build's
/// `LockProbe` on the thread that makes them, while real downloads, decodes and
/// deliveries run on the loader's other threads. Nor do they wake the scheduler's
/// thread while it naps beside a moving list.
final class UIThreadLockTests: XCTestCase {
    func testTheViewCallsTakeNoLockWhileTheLoaderWorks() throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        let rows = 400
        let jpeg = makeJPEG(width: 64, height: 48)
        for n in 0..<rows { server.serve("/\(n).jpg", body: jpeg) }
        var config = LoaderConfiguration()
        config.target = TargetSize(width: 32, height: 0)
        let log = EventLog()
        let loader = try ImageLoader(configuration: config) { log.record($0) }
        defer { try? loader.shutdown() }
        try loader.setItems((0..<rows).map { server.url("/\($0).jpg") })

        // A slow scroll that moves on a row per image shown, so that the rows in
        // view always have work going: each frame reports its state, range and
        // target, asks for the rows in view and dispatches, until enough images have
        // come to be sure the frames ran beside the loader's work.
        var viewCallLocks: UInt64 = 0
        var frames = 0
        let deadline = MonotonicClock().nowMilliseconds + 20_000
        var images = 0
        var asked = Set<Int>()
        var hits = 0
        while images < 60 && MonotonicClock().nowMilliseconds < deadline {
            let first = min(images, rows - 10)
            LockProbe.watchCallingThread()
            try loader.setScrollState(frames % 120 < 60 ? .dragging : .decelerating, velocity: 7.5)
            try loader.setVisibleRange(first: first, count: 10)
            try loader.setScrollTarget(first: first + 2, count: 10)
            viewCallLocks += LockProbe.acquisitions
            LockProbe.stop()
            for row in first..<first + 10 where asked.insert(row).inserted {
                if case .image = try loader.request(row: row) { hits += 1 }
            }
            _ = loader.dispatch(max: 0)
            images = hits + log.all.filter { $0.image != nil }.count
            frames += 1
            // A frame's pace, as a UI's is: the next once the scheduler has taken
            // this one (a loop with no pause would out-run it, a million frames a
            // second).
            loader.loop.waitForStep()
        }
        LockProbe.stop()
        XCTAssertGreaterThanOrEqual(images, 60, "images arrived meanwhile")
        XCTAssertEqual(viewCallLocks, 0, "set_scroll_state, set_visible_range and set_scroll_target take no lock")
    }

    /// The calls of a gesture write to the scheduler's eventfd only when they find
    /// it asleep: at the touch from rest, not on each frame, the release, the
    /// target or the rest. (When a new state or a target woke a napping scheduler,
    /// these six gestures made 18 writes.)
    func testOnlyATouchFromRestPaysForWakingTheScheduler() throws {
        // No list: nothing to download, so the view calls are the only writers.
        let loader = try ImageLoader(configuration: LoaderConfiguration()) { _ in }
        defer { try? loader.shutdown() }
        let gestures = 6
        var woken: UInt64 = 0
        // A call that came more than this long after the last one returned may
        // find the scheduler asleep (it naps for `hostQuietMilliseconds` after the
        // last call, looking every `napMilliseconds`), and then rightly writes.
        let lateGap = SchedulerLoop.hostQuietMilliseconds - 2 * SchedulerLoop.napMilliseconds
        var lateCalls: UInt64 = 0
        for gesture in 0..<gestures {
            // From rest: the last gesture's rest taken and the scheduler asleep.
            loader.loop.waitForStep()
            let deadline = MonotonicClock().nowMilliseconds + 5_000
            while !loader.wake.isSleeping && MonotonicClock().nowMilliseconds < deadline { sched_yield() }
            XCTAssertTrue(loader.wake.isSleeping, "at rest the scheduler sleeps")
            let before = loader.wake.signalsSent.load(ordering: .relaxed)
            var returned: Int64?
            var row = gesture * 100
            func call(_ body: () throws -> Void) rethrows {
                if let returned, MonotonicClock().nowMilliseconds - returned > lateGap { lateCalls += 1 }
                try body()
                returned = MonotonicClock().nowMilliseconds
            }
            func frame(_ state: ScrollState, _ velocity: Double) throws {
                try call { try loader.setScrollState(state, velocity: velocity) }
                try call { try loader.setVisibleRange(first: row, count: 10) }
                // A 60 Hz frame's pace: what the scheduler's naps are made for.
                usleep(16_000)
            }
            try frame(.dragging, 0)
            for _ in 0..<5 { row += 1; try frame(.dragging, 60) }
            try call { try loader.setScrollTarget(first: row + 40, count: 10) }
            for step in 0..<10 { row += 4; try frame(.decelerating, 240 / Double(step + 1)) }
            try frame(.idle, 0)
            woken += loader.wake.signalsSent.load(ordering: .relaxed) - before
        }
        XCTAssertGreaterThanOrEqual(woken, UInt64(gestures), "a touch from rest wakes the sleeping scheduler")
        XCTAssertLessThanOrEqual(woken, UInt64(gestures) + lateCalls,
                                 "one write a gesture, at its touch, and one for each call that came late")
    }

    func testTheProbeSeesALockAnotherThreadHolds() throws {
        final class Flags: Sendable {
            let holding = Atomic<Bool>(false)
            let release = Atomic<Bool>(false)
        }
        let lock = Locked(0)
        let flags = Flags()
        let holder = try XCTUnwrap(NativeThread(name: "lazyimg-test") {
            lock.withLock { _ in
                flags.holding.store(true, ordering: .releasing)
                while !flags.release.load(ordering: .acquiring) { sched_yield() }
            }
        })
        while !flags.holding.load(ordering: .acquiring) { sched_yield() }
        LockProbe.watchCallingThread()
        // Lets the holder go once the probe has counted the watched thread finding
        // the lock held (or after 5 s, when it never will).
        let releaser = try XCTUnwrap(NativeThread(name: "lazyimg-test") {
            let deadline = MonotonicClock().nowMilliseconds + 5_000
            while LockProbe.contended == 0 && MonotonicClock().nowMilliseconds < deadline { sched_yield() }
            flags.release.store(true, ordering: .releasing)
        })
        lock.withLock { _ in }
        LockProbe.stop()
        holder.join()
        releaser.join()
        XCTAssertEqual(LockProbe.acquisitions, 1)
        XCTAssertEqual(LockProbe.contended, 1)
    }
}
#endif
#endif
