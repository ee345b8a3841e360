#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_3 // ThreadSanitizer group 3 (see the Makefile's tsan)
import XCTest
@testable import LazyImgCore

/// A list at rest repeats its IDLE state and visible range every frame: the loader
/// answers those repeats without its lock while nothing else took it, and only then.
final class RestingViewTests: XCTestCase {
    func testAPublishedViewIsCurrentUntilTheLockIsTakenAgain() {
        let lock = Locked(0)
        let view = RestingView()
        XCTAssertFalse(view.isCurrent(under: lock, rows: nil), "nothing published")
        lock.withLock { _ in view.publish(3..<13, under: lock) }
        XCTAssertTrue(view.isCurrent(under: lock, rows: nil))
        XCTAssertTrue(view.isCurrent(under: lock, rows: 3..<13))
        XCTAssertFalse(view.isCurrent(under: lock, rows: 3..<14), "other rows")
        lock.withLock { _ in }
        XCTAssertFalse(view.isCurrent(under: lock, rows: 3..<13), "the lock was taken since, for whatever reason")
        lock.withLock { _ in view.publish(3..<13, under: lock) }
        lock.withLock { _ in view.publish(nil, under: lock) }
        XCTAssertFalse(view.isCurrent(under: lock, rows: nil), "withdrawn")
        lock.withLock { _ in view.publish(0..<Int(UInt32.max) + 1, under: lock) }
        XCTAssertFalse(view.isCurrent(under: lock, rows: nil), "bounds past 32 bits are never published")
    }

    func testRepeatsChangeNothingOnlyOnceTheListHasSettled() {
        var view = ViewState(prefetchRows: 0)
        view.rowCount = 1_000
        XCTAssertFalse(view.repeatsChangeNothing, "no range yet")
        view.setVisible(280..<290)
        XCTAssertTrue(view.repeatsChangeNothing)
        view.setScroll(.decelerating, velocity: 5, now: 0)
        view.setTarget(300..<310)
        XCTAssertFalse(view.repeatsChangeNothing, "moving")
        view.setScroll(.idle, velocity: 0, now: 16)
        XCTAssertFalse(view.repeatsChangeNothing, "the next range still forgets the landing")
        view.setVisible(300..<310)
        XCTAssertTrue(view.repeatsChangeNothing)
        view.setScroll(.idle, velocity: 3, now: 32)
        XCTAssertFalse(view.repeatsChangeNothing, "a velocity at rest still turns the list")
        view.setScroll(.idle, velocity: 0, now: 48)
        view.setTarget(0..<10)
        XCTAssertFalse(view.repeatsChangeNothing, "the next IDLE voids the target")
    }

    func testAListAtRestRepeatsItsViewWithoutTheLock() throws {
        let h = try PolicyHarness()
        try h.loader.setItems(PolicyHarness.urls(40))
        try h.loader.setScrollState(.idle, velocity: 0)
        try h.loader.setVisibleRange(first: 0, count: 10)
        for row in 0..<10 { XCTAssertTrue(try h.loader.request(row: row).isPending) }
        for row in 0..<10 { h.transport.complete("http://example.test/\(row).jpg", with: .success([1])) }
        h.deliver(until: 10)

        // A frame at rest, then its repeats: only the first takes the lock.
        try h.loader.setScrollState(.idle, velocity: 0)
        try h.loader.setVisibleRange(first: 0, count: 10)
        _ = h.loader.dispatch(max: 0)
        let taken = h.loader.state.timesTaken
        for _ in 0..<3 {
            try h.loader.setScrollState(.idle, velocity: 0)
            try h.loader.setVisibleRange(first: 0, count: 10)
            XCTAssertEqual(h.loader.dispatch(max: 0), 0)
        }
        XCTAssertEqual(h.loader.state.timesTaken, taken, "repeats at rest, and dispatches with nothing queued")

        // Anything that takes the lock, a memory hit included, ends it until the next
        // frame's first call has looked again.
        XCTAssertEqual(try h.loader.request(row: 3).image?.width, 1)
        try h.loader.setScrollState(.idle, velocity: 0)
        XCTAssertEqual(h.loader.state.timesTaken, taken + 2, "the hit, then the state call")
        try h.loader.setVisibleRange(first: 0, count: 10)
        XCTAssertEqual(h.loader.state.timesTaken, taken + 2)

        // A range that moved is no repeat: its new rows start.
        try h.loader.setVisibleRange(first: 10, count: 10)
        XCTAssertEqual(h.transport.liveURLs, Set((10..<16).map { "http://example.test/\($0).jpg" }))
    }

    func testTheFirstRangeAfterALandingIsNoRepeatEvenWhenItIsTheSame() throws {
        let h = try PolicyHarness(maxConcurrent: 16)
        try h.loader.setItems(PolicyHarness.urls(400))
        try h.loader.setScrollState(.decelerating, velocity: 5)
        try h.loader.setVisibleRange(first: 300, count: 10)
        try h.loader.setScrollTarget(first: 300, count: 10)
        let sideRow = "http://example.test/298.jpg"
        XCTAssertTrue(h.transport.liveURLs.contains(sideRow), "the landing zone's rows on the side the list comes from")
        try h.loader.setScrollState(.idle, velocity: 0)
        XCTAssertTrue(h.transport.liveURLs.contains(sideRow), "wanted until the final range")
        // The range the list rests at is the one it last reported: the same call.
        try h.loader.setVisibleRange(first: 300, count: 10)
        XCTAssertFalse(h.transport.liveURLs.contains(sideRow), "the list rests where it rests")
        XCTAssertTrue(h.transport.liveURLs.contains("http://example.test/300.jpg"))
    }

    func testShutdownEndsTheRepeatsAnswer() throws {
        let h = try PolicyHarness()
        try h.loader.setItems(PolicyHarness.urls(10))
        try h.loader.setScrollState(.idle, velocity: 0)
        try h.loader.setVisibleRange(first: 0, count: 10)
        try h.loader.shutdown()
        XCTAssertThrowsError(try h.loader.setScrollState(.idle, velocity: 0)) { error in
            XCTAssertEqual(error as? LoaderError, .shutdown)
        }
        XCTAssertThrowsError(try h.loader.setVisibleRange(first: 0, count: 10)) { error in
            XCTAssertEqual(error as? LoaderError, .shutdown)
        }
    }
}
#endif
