#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_3 // ThreadSanitizer group 3 (see the Makefile's tsan)
import XCTest
@testable import LazyImgCore

/// A list at rest repeats its IDLE state and visible range every frame: once the
/// scheduler has seen the list settle, the host's threads drop those repeats, until
/// the host gives any other input.
final class RestingViewTests: XCTestCase {
    func testAPublishedViewIsCurrentUntilTheHostGivesAnotherInput() {
        let view = RestingView()
        XCTAssertFalse(view.isCurrent(inputsPushed: 0, rows: nil), "nothing published")
        view.publish(3..<13, afterInputs: 5)
        XCTAssertTrue(view.isCurrent(inputsPushed: 5, rows: nil))
        XCTAssertTrue(view.isCurrent(inputsPushed: 5, rows: 3..<13))
        XCTAssertFalse(view.isCurrent(inputsPushed: 5, rows: 3..<14), "other rows")
        XCTAssertFalse(view.isCurrent(inputsPushed: 6, rows: 3..<13), "an input the scheduler has not read")
        view.publish(nil, afterInputs: 6)
        XCTAssertFalse(view.isCurrent(inputsPushed: 6, rows: nil), "withdrawn")
        view.publish(0..<Int(UInt32.max) + 1, afterInputs: 6)
        XCTAssertFalse(view.isCurrent(inputsPushed: 6, rows: nil), "bounds past 32 bits are never published")
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

    func testAListAtRestDropsItsRepeatsUntilAnythingElseHappens() throws {
        let h = try PolicyHarness()
        try h.loader.setItems(PolicyHarness.urls(40))
        try h.loader.setScrollState(.idle, velocity: 0)
        try h.loader.setVisibleRange(first: 0, count: 10)
        for row in 0..<10 { XCTAssertTrue(try h.loader.request(row: row).isPending) }
        for row in 0..<10 { h.transport.complete("http://example.test/\(row).jpg", with: .success([1])) }
        h.deliver(until: 10)

        // A frame at rest, seen by the scheduler; then its repeats go nowhere.
        try h.loader.setScrollState(.idle, velocity: 0)
        try h.loader.setVisibleRange(first: 0, count: 10)
        h.settle()
        let pushed = h.loader.hostRing.inputsGiven
        for _ in 0..<3 {
            try h.loader.setScrollState(.idle, velocity: 0)
            try h.loader.setVisibleRange(first: 0, count: 10)
            XCTAssertEqual(h.loader.dispatch(max: 0), 0)
            XCTAssertEqual(try h.loader.request(row: 3).image?.width, 1, "memory hits push nothing either")
        }
        XCTAssertEqual(h.loader.hostRing.inputsGiven, pushed, "repeats at rest, hits and empty dispatches")

        // Another input is pushed; once the scheduler has read it (whether the next
        // repeat came before or after, which its thread decides), repeats go nowhere
        // again. That a repeat made before it read is pushed: the first test.
        try h.loader.setPaging(distanceRows: 0, hasMore: false)
        XCTAssertEqual(h.loader.hostRing.inputsGiven, pushed + 1, "the paging call")
        h.settle()
        try h.loader.setScrollState(.idle, velocity: 0)
        try h.loader.setVisibleRange(first: 0, count: 10)
        XCTAssertEqual(h.loader.hostRing.inputsGiven, pushed + 1)

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
