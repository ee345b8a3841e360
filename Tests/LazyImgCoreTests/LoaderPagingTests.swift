#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_1 // ThreadSanitizer group 1 (see the Makefile's tsan)
import XCTest
@testable import LazyImgCore

/// NEED_PAGE: one event per approach to the end of a paged list, on a fake transport.
final class LoaderPagingTests: XCTestCase {
    private var h: PolicyHarness!

    override func setUpWithError() throws {
        h = try PolicyHarness()
        try h.loader.setItems(PolicyHarness.urls(100))
    }

    override func tearDown() {
        try? h.loader.shutdown()
        h = nil
    }

    /// Delivers what waits once the scheduler has handled the calls so far, and
    /// returns the NEED_PAGE events so far.
    private func pageRequests() -> [LoaderEvent] {
        h.settle()
        _ = h.loader.dispatch(max: 0)
        return h.log.all.filter { if case .needPage = $0.outcome { return true } else { return false } }
    }

    func testOneEventPerApproachAndAppendRearms() throws {
        try h.loader.setPaging(distanceRows: 10, hasMore: true)
        try h.loader.setVisibleRange(first: 0, count: 10)
        try h.loader.setVisibleRange(first: 79, count: 10)
        XCTAssertEqual(pageRequests().count, 0, "89 + 10 rows is short of 100")
        try h.loader.setVisibleRange(first: 80, count: 10)
        XCTAssertEqual(pageRequests().count, 1)
        for first in [81, 85, 90, 84, 90] {
            try h.loader.setVisibleRange(first: first, count: 10)
            try h.loader.setScrollState(.dragging, velocity: 5)
            try h.loader.setScrollState(.idle, velocity: 0)
        }
        let first = try XCTUnwrap(pageRequests().first)
        XCTAssertEqual(pageRequests().count, 1, "no second event until the list grows")
        XCTAssertEqual(first.ticket, 0)
        XCTAssertEqual(first.row, 100, "row is the row count")

        try h.loader.appendItems([] as [ImageURL?])
        XCTAssertEqual(pageRequests().count, 1, "an empty page does not grow the list")
        try h.loader.appendItems(PolicyHarness.urls(50))
        XCTAssertEqual(pageRequests().count, 1, "100 + 10 is short of 150")
        try h.loader.setVisibleRange(first: 130, count: 10)
        try h.loader.setVisibleRange(first: 140, count: 10)
        XCTAssertEqual(pageRequests().map(\.row), [100, 150])
    }

    func testAFlingHeadingForTheEndAsksBeforeItGetsThere() throws {
        try h.loader.setPaging(distanceRows: 10, hasMore: true)
        try h.loader.setVisibleRange(first: 0, count: 10)
        try h.loader.setScrollState(.decelerating, velocity: 2_000)
        try h.loader.setVisibleRange(first: 30, count: 10)
        XCTAssertEqual(pageRequests().count, 0, "40 rows in, the end is 60 away")
        // The toolkit says the fling rests on the last rows: ask now, not on arrival.
        try h.loader.setScrollTarget(first: 90, count: 10)
        XCTAssertEqual(pageRequests().map(\.row), [100], "asked while the visible rows are 30..39")
    }

    func testNoEventWithoutMorePagesOrBeforeTheFirstCall() throws {
        try h.loader.setVisibleRange(first: 90, count: 10)
        XCTAssertEqual(pageRequests().count, 0, "off until lazyimg_set_paging")
        try h.loader.setPaging(distanceRows: 10, hasMore: false)
        try h.loader.setVisibleRange(first: 95, count: 5)
        try h.loader.appendItems(PolicyHarness.urls(5))
        try h.loader.setVisibleRange(first: 100, count: 5)
        XCTAssertEqual(pageRequests().count, 0)
    }

    func testSettingPagingAgainRearmsAfterAFailedPage() throws {
        try h.loader.setVisibleRange(first: 95, count: 5)
        try h.loader.setPaging(distanceRows: 0, hasMore: true)
        XCTAssertEqual(pageRequests().count, 1, "already at the end: asks at once")
        try h.loader.setVisibleRange(first: 94, count: 6)
        XCTAssertEqual(pageRequests().count, 1)
        // The host's page fetch failed: it re-arms, and is asked again.
        try h.loader.setPaging(distanceRows: 0, hasMore: true)
        XCTAssertEqual(pageRequests().count, 2)
        try h.loader.setPaging(distanceRows: 0, hasMore: false)
        try h.loader.setVisibleRange(first: 95, count: 5)
        XCTAssertEqual(pageRequests().count, 2, "has_more 0 stops the events")
    }

    func testDistanceRowsSetsHowEarlyItAsks() throws {
        try h.loader.setPaging(distanceRows: 50, hasMore: true)
        try h.loader.setVisibleRange(first: 39, count: 10)
        XCTAssertEqual(pageRequests().count, 0)
        try h.loader.setVisibleRange(first: 40, count: 10)
        XCTAssertEqual(pageRequests().count, 1, "50 rows before the end")
    }

    func testPageEventsDoNotDisturbImageTickets() throws {
        try h.loader.setPaging(distanceRows: 5, hasMore: true)
        try h.loader.setVisibleRange(first: 95, count: 5)
        let ticket = try XCTUnwrap(h.loader.request(row: 97).ticket)
        XCTAssertTrue(h.transport.complete("http://example.test/97.jpg", with: .success([1, 2, 3])))
        h.deliver(until: 2)
        XCTAssertEqual(h.log.events(for: ticket).count, 1)
        XCTAssertEqual(h.log.events(for: 0).count, 1)
    }
}
#endif
