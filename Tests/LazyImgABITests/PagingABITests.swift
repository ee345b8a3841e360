#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_2 // ThreadSanitizer group 2 (see the Makefile's tsan)
import CLazyImgHeader
import XCTest

/// lazyimg_set_paging as a C host sees it: the NEED_PAGE event's fields and misuse.
final class PagingABITests: XCTestCase {
    func testNeedPageEventAsTheHeaderDescribesIt() throws {
        let host = try CHost()
        XCTAssertEqual(host.setItems((0..<20).map { "http://127.0.0.1:9/\($0).jpg" }), LAZYIMG_OK)
        XCTAssertEqual(lazyimg_set_scroll_state(host.loader, LAZYIMG_SCROLL_DRAGGING, 30), LAZYIMG_OK)
        XCTAssertEqual(lazyimg_set_paging(host.loader, 3, 1), LAZYIMG_OK)
        XCTAssertEqual(lazyimg_set_visible_range(host.loader, 10, 7), LAZYIMG_OK)
        // Decided on the loader's scheduler thread: it comes moments after the call.
        host.dispatch(until: 1)
        let event = try XCTUnwrap(host.events.first)
        XCTAssertEqual(event.type, LAZYIMG_EVENT_NEED_PAGE)
        XCTAssertEqual(event.ticket, 0)
        XCTAssertEqual(event.row, 20)
        XCTAssertEqual(event.status, LAZYIMG_OK)
        XCTAssertEqual(event.url, "")
        XCTAssertEqual(event.message, "")
        XCTAssertEqual(event.structSize, UInt32(MemoryLayout<lazyimg_event>.size))
        XCTAssertEqual(lazyimg_set_visible_range(host.loader, 11, 7), LAZYIMG_OK)
        // A fetch the scheduler takes after that range, refused at once: its event
        // comes after anything the range could have caused.
        var fetch: UInt64 = 0
        XCTAssertEqual(lazyimg_fetch(host.loader, "http://127.0.0.1:9/after", &fetch), LAZYIMG_PENDING)
        host.dispatch(until: 2)
        XCTAssertEqual(host.events.map(\.ticket), [0, fetch], "one per approach")
    }

    func testMisuse() throws {
        let host = try CHost()
        XCTAssertEqual(lazyimg_set_paging(nil, 5, 1), LAZYIMG_E_INVALID_ARGUMENT)
        XCTAssertEqual(lazyimg_set_paging(host.loader, Int.max, 1), LAZYIMG_OK, "a huge distance is clamped")
        XCTAssertEqual(lazyimg_set_visible_range(host.loader, 0, 1), LAZYIMG_OK)
        host.dispatch(until: 1)
        XCTAssertEqual(host.events.map(\.type), [LAZYIMG_EVENT_NEED_PAGE], "an empty list with more to come asks at once")
        XCTAssertEqual(host.destroy(), LAZYIMG_OK)
    }
}
#endif
