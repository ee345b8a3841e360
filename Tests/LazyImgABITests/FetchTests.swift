#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_1 // ThreadSanitizer group 1 (see the Makefile's tsan)
import CLazyImgHeader
import TestSupport
import XCTest

/// lazyimg_fetch through the C API: real libcurl against the loopback server.
final class FetchTests: XCTestCase {
    private var server: HTTPTestServer!

    override func setUpWithError() throws {
        server = try HTTPTestServer()
    }

    override func tearDown() {
        server.stop()
    }

    private func fetch(_ host: CHost, _ path: String) -> (status: lazyimg_status, ticket: UInt64) {
        var ticket: UInt64 = 0
        let status = lazyimg_fetch(host.loader, server.url(path), &ticket)
        return (status, ticket)
    }

    func testBodyArrivesIntactInOneDataEvent() throws {
        let body = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        server.serve("/feed.json", body: body)
        let host = try CHost()
        let (status, ticket) = fetch(host, "/feed.json")
        XCTAssertEqual(status, LAZYIMG_PENDING)
        XCTAssertNotEqual(ticket, 0)
        host.dispatch(until: 1)
        let event = try XCTUnwrap(host.events.first)
        XCTAssertEqual(event.type, LAZYIMG_EVENT_DATA)
        XCTAssertEqual(event.ticket, ticket)
        XCTAssertEqual(event.status, LAZYIMG_OK)
        XCTAssertEqual(event.httpStatus, 200)
        XCTAssertEqual(event.url, server.url("/feed.json"))
        XCTAssertEqual(event.data, body)
        XCTAssertEqual(host.events.count, 1)
        var stats = lazyimg_stats()
        stats.struct_size = UInt32(MemoryLayout<lazyimg_stats>.size)
        XCTAssertEqual(lazyimg_get_stats(host.loader, &stats), LAZYIMG_OK)
        XCTAssertEqual(stats.bytes_downloaded, UInt64(body.count))
        XCTAssertEqual(stats.downloads_started, 0, "downloads_* count images only")
    }

    func testEachFetchIsItsOwnTransferNeverCached() throws {
        server.serve("/page", body: Array("[]".utf8))
        let host = try CHost()
        _ = fetch(host, "/page")
        _ = fetch(host, "/page")
        host.dispatch(until: 2)
        _ = fetch(host, "/page")
        host.dispatch(until: 3)
        XCTAssertEqual(server.hits("/page"), 3)
        XCTAssertEqual(Set(host.events.map(\.ticket)).count, 3)
        XCTAssertTrue(host.events.allSatisfy { $0.type == LAZYIMG_EVENT_DATA && $0.data == Array("[]".utf8) })
    }

    func testHTTPErrorFailsWithStatusAndMessage() throws {
        server.serve("/gone", body: Array("no".utf8), status: 404)
        let host = try CHost()
        let (_, ticket) = fetch(host, "/gone")
        host.dispatch(until: 1)
        let event = try XCTUnwrap(host.events.first)
        XCTAssertEqual(event.ticket, ticket)
        XCTAssertEqual(event.type, LAZYIMG_EVENT_FAILED)
        XCTAssertEqual(event.status, LAZYIMG_E_HTTP)
        XCTAssertEqual(event.httpStatus, 404)
        XCTAssertEqual(event.message, "HTTP status 404")
        XCTAssertEqual(event.data, [])
    }

    func testBodyOverMaxResponseBytesFails() throws {
        server.serve("/huge", body: [UInt8](repeating: 7, count: 5000))
        let host = try CHost { $0.max_response_bytes = 1000 }
        _ = fetch(host, "/huge")
        host.dispatch(until: 1)
        XCTAssertEqual(host.events.first?.status, LAZYIMG_E_TOO_LARGE)
    }

    func testMaxResponseBytesHoldsAtTheExactEdge() throws {
        server.serve("/edge", body: [UInt8](repeating: 7, count: 1000), framing: .chunked)
        server.serve("/past", body: [UInt8](repeating: 7, count: 1001), framing: .chunked)
        let host = try CHost { $0.max_response_bytes = 1000 }
        let (_, edge) = fetch(host, "/edge")
        let (_, past) = fetch(host, "/past")
        host.dispatch(until: 2)
        // The two fetches run at once: their events come in either order.
        let byTicket = Dictionary(uniqueKeysWithValues: host.events.map { ($0.ticket, $0) })
        XCTAssertEqual(byTicket[edge]?.status, LAZYIMG_OK)
        XCTAssertEqual(byTicket[edge]?.data.count, 1000)
        XCTAssertEqual(byTicket[past]?.status, LAZYIMG_E_TOO_LARGE)
    }

    func testTimeoutAppliesToFetches() throws {
        server.serveGated("/stuck", body: [1])
        defer { server.release("/stuck") }
        let host = try CHost { $0.timeout_ms = 300 }
        _ = fetch(host, "/stuck")
        host.dispatch(until: 1)
        XCTAssertEqual(host.events.first?.type, LAZYIMG_EVENT_FAILED)
        XCTAssertEqual(host.events.first?.status, LAZYIMG_E_NETWORK)
    }

    func testHeadersAndUserAgentGoWithFetches() throws {
        server.serve("/h", body: [1])
        let header = strdup("X-Feed-Key: abc")
        defer { free(header) }
        var headers: [UnsafePointer<CChar>?] = [UnsafePointer(header), nil]
        let host = try headers.withUnsafeMutableBufferPointer { list in
            try CHost {
                $0.http_headers = UnsafePointer(list.baseAddress)
                $0.user_agent = UnsafePointer(header)
            }
        }
        _ = fetch(host, "/h")
        host.dispatch(until: 1)
        let request = try XCTUnwrap(server.requests("/h").first)
        XCTAssertEqual(request.header("X-Feed-Key"), "abc")
        XCTAssertEqual(request.header("User-Agent"), "X-Feed-Key: abc")
    }

    func testCancelEndsTheFetchWithOneCancelledEvent() throws {
        server.serveGated("/slow-feed", body: [1, 2, 3])
        defer { server.release("/slow-feed") }
        let host = try CHost()
        let (_, ticket) = fetch(host, "/slow-feed")
        XCTAssertTrue(server.waitForHits("/slow-feed", count: 1, timeoutMilliseconds: 10_000))
        XCTAssertEqual(lazyimg_cancel(host.loader, ticket), LAZYIMG_OK)
        XCTAssertEqual(lazyimg_cancel(host.loader, ticket), LAZYIMG_MISS, "already ended")
        host.dispatch(until: 1)
        server.release("/slow-feed")
        XCTAssertEqual(host.events.map(\.status), [LAZYIMG_E_CANCELLED])
        XCTAssertEqual(host.destroy(), LAZYIMG_OK)
        XCTAssertEqual(host.events.count, 1, "no second event, also not at destroy")
    }

    func testDestroyCancelsAWaitingFetch() throws {
        server.serveGated("/never", body: [1])
        defer { server.release("/never") }
        let host = try CHost()
        let (_, ticket) = fetch(host, "/never")
        XCTAssertEqual(host.destroy(), LAZYIMG_OK)
        XCTAssertEqual(host.events.map(\.ticket), [ticket])
        XCTAssertEqual(host.events.first?.status, LAZYIMG_E_CANCELLED)
    }

    func testFetchGoesAheadOfWaitingImages() throws {
        server.serveGated("/busy.png", body: makePNG(width: 4, height: 4, pattern: .solid(red: 1, green: 2, blue: 3, alpha: 255)))
        server.serveGated("/feed", body: Array("{}".utf8))
        for name in ["a", "b"] {
            server.serve("/\(name).png", body: makePNG(width: 4, height: 4, pattern: .solid(red: 9, green: 9, blue: 9, alpha: 255)))
        }
        let host = try CHost { $0.max_concurrent_downloads = 1 }
        XCTAssertEqual(host.setItems(["/busy.png", "/a.png", "/b.png"].map { server.url($0) }), LAZYIMG_OK)
        XCTAssertEqual(host.request(0).status, LAZYIMG_PENDING)
        XCTAssertTrue(server.waitForHits("/busy.png", count: 1, timeoutMilliseconds: 10_000))
        XCTAssertEqual(host.request(1).status, LAZYIMG_PENDING)
        XCTAssertEqual(host.request(2).status, LAZYIMG_PENDING)
        let (_, ticket) = fetch(host, "/feed")
        server.release("/busy.png")
        XCTAssertTrue(server.waitForHits("/feed", count: 1, timeoutMilliseconds: 10_000), "the fetch takes the free slot")
        XCTAssertEqual(server.hits("/a.png") + server.hits("/b.png"), 0, "images wait behind the fetch")
        server.release("/feed")
        host.dispatch(until: 4)
        XCTAssertEqual(host.events.filter { $0.ticket == ticket }.map(\.type), [LAZYIMG_EVENT_DATA])
    }

    func testFetchRunsWhileTheListScrolls() throws {
        server.serve("/page2", body: Array("[1]".utf8))
        let host = try CHost()
        XCTAssertEqual(lazyimg_set_scroll_state(host.loader, LAZYIMG_SCROLL_DECELERATING, 40), LAZYIMG_OK)
        _ = fetch(host, "/page2")
        host.dispatch(until: 1)
        XCTAssertEqual(host.events.first?.type, LAZYIMG_EVENT_DATA)
    }

    func testMisuseAnswersAnErrorAndNoEvent() throws {
        let host = try CHost()
        var ticket: UInt64 = 99
        XCTAssertEqual(lazyimg_fetch(nil, "http://127.0.0.1/x", &ticket), LAZYIMG_E_INVALID_ARGUMENT)
        XCTAssertEqual(ticket, 0)
        XCTAssertEqual(lazyimg_fetch(host.loader, nil, &ticket), LAZYIMG_E_INVALID_ARGUMENT)
        XCTAssertEqual(lazyimg_fetch(host.loader, "http://127.0.0.1/x", nil), LAZYIMG_E_INVALID_ARGUMENT)
        XCTAssertEqual(lazyimg_fetch(host.loader, "not a url", &ticket), LAZYIMG_E_BAD_URL)
        XCTAssertEqual(lazyimg_dispatch(host.loader, 0), 0)
        XCTAssertEqual(host.events.count, 0)
    }
}
#endif
