#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_1 // ThreadSanitizer group 1 (see the Makefile's tsan)
import CLazyImgHeader
import Glibc
import TestSupport
import XCTest

/// The whole library through its C API: real libcurl against a real HTTP server on
/// loopback, real decoders on images generated here. Server hit counts prove
/// coalescing and deferral.
final class EndToEndTests: XCTestCase {
    private var server: HTTPTestServer!

    override func setUpWithError() throws {
        server = try HTTPTestServer()
    }

    override func tearDown() {
        server.stop()
    }

    private func box(_ width: UInt32, _ height: UInt32) -> (inout lazyimg_config) -> Void {
        { $0.target_width = width; $0.target_height = height }
    }

    func testJPEGAndPNGArriveDecodedIntoTheBox() throws {
        server.serve("/photo.jpg", body: makeJPEG(width: 320, height: 240, pattern: .solid(red: 200, green: 40, blue: 10)))
        server.serve("/icon.png", body: makePNG(width: 100, height: 200, pattern: .solid(red: 0, green: 0, blue: 255, alpha: 128)))
        let host = try CHost(box(64, 64))
        XCTAssertEqual(host.setItems([server.url("/photo.jpg"), server.url("/icon.png")]), LAZYIMG_OK)
        let tickets = [host.request(0), host.request(1)]
        XCTAssertEqual(tickets.map(\.status), [LAZYIMG_PENDING, LAZYIMG_PENDING])
        host.dispatch(until: 2)
        let photo = try XCTUnwrap(host.events.first { $0.ticket == tickets[0].ticket })
        XCTAssertEqual(photo.type, LAZYIMG_EVENT_IMAGE)
        XCTAssertEqual(photo.status, LAZYIMG_OK)
        XCTAssertEqual(photo.source, LAZYIMG_SOURCE_NETWORK)
        XCTAssertEqual(photo.httpStatus, 200)
        XCTAssertEqual(photo.row, 0)
        XCTAssertEqual([photo.width, photo.height], [64, 48], "fits the box, keeps 4:3")
        let icon = try XCTUnwrap(host.events.first { $0.ticket == tickets[1].ticket })
        XCTAssertEqual([icon.width, icon.height], [32, 64])

        // Now in memory: OK at once, with the pixels and sizes of the C API.
        var image: OpaquePointer?
        var ticket: UInt64 = 0
        XCTAssertEqual(lazyimg_request(host.loader, 0, &image, &ticket), LAZYIMG_OK)
        XCTAssertEqual(ticket, 0)
        XCTAssertEqual(lazyimg_image_source_width(image), 320)
        XCTAssertEqual(lazyimg_image_source_height(image), 240)
        XCTAssertGreaterThanOrEqual(lazyimg_image_stride(image), 64 * 4)
        let pixels = try XCTUnwrap(lazyimg_image_pixels(image))
        let center = 24 * lazyimg_image_stride(image) + 32 * 4
        XCTAssertEqual(Double(pixels[center]), 200, accuracy: 6)
        XCTAssertEqual(Double(pixels[center + 1]), 40, accuracy: 6)
        XCTAssertEqual(pixels[center + 3], 255)

        // The host's reference outlives the cache.
        lazyimg_trim_memory(host.loader, LAZYIMG_TRIM_COMPLETE)
        var again: OpaquePointer?
        XCTAssertEqual(lazyimg_lookup_url(host.loader, server.url("/photo.jpg"), &again), LAZYIMG_MISS)
        XCTAssertEqual(Double(pixels[center]), 200, accuracy: 6)
        XCTAssertEqual(lazyimg_image_retain(image), image)
        lazyimg_image_release(image)
        lazyimg_image_release(image)
        XCTAssertEqual(server.totalHits, 2)
    }

    func testManyRowsWithOneURLCostOneDownload() throws {
        server.serveGated("/shared.jpg", body: makeJPEG(width: 64, height: 64))
        let host = try CHost()
        XCTAssertEqual(host.setItems(Array(repeating: server.url("/shared.jpg"), count: 10)), LAZYIMG_OK)
        let tickets = (0..<10).map { host.request($0).ticket }
        XCTAssertTrue(server.waitForHits("/shared.jpg", count: 1, timeoutMilliseconds: 10_000))
        server.release("/shared.jpg")
        host.dispatch(until: 10)
        XCTAssertEqual(Set(host.events.map(\.ticket)), Set(tickets))
        XCTAssertTrue(host.events.allSatisfy { $0.type == LAZYIMG_EVENT_IMAGE && $0.ticket == tickets[$0.row] })
        XCTAssertEqual(server.hits("/shared.jpg"), 1)
        let stats = host.stats()
        XCTAssertEqual(stats.downloads_started, 1)
        XCTAssertEqual(stats.downloads_coalesced, 9)
        XCTAssertEqual(stats.images_decoded, 1)
        XCTAssertEqual(stats.memory_cache_count, 1)
    }

    func testAScriptedScrollDefersThenLoadsVisibleRowsOnce() throws {
        let rows = 60
        for n in 0..<rows { server.serve("/\(n).jpg", body: makeJPEG(width: 48, height: 32)) }
        let host = try CHost { $0.prefetch_rows = 0 }
        XCTAssertEqual(host.setItems((0..<rows).map { server.url("/\($0).jpg") }), LAZYIMG_OK)
        XCTAssertEqual(lazyimg_set_scroll_state(host.loader, LAZYIMG_SCROLL_DRAGGING, 40), LAZYIMG_OK)
        var wanted: [Int: UInt64] = [:]
        for first in stride(from: 0, through: 40, by: 10) {  // five frames of a fling
            XCTAssertEqual(lazyimg_set_visible_range(host.loader, first, 8), LAZYIMG_OK)
            for row in first..<first + 8 {
                let answer = host.request(row)
                XCTAssertEqual(answer.status, LAZYIMG_DEFERRED, "row \(row)")
                wanted[row] = answer.ticket
            }
        }
        // 20 rows/s is faster than a screen (8 rows) per second: still held back.
        XCTAssertEqual(lazyimg_set_scroll_state(host.loader, LAZYIMG_SCROLL_DECELERATING, 20), LAZYIMG_OK)
        XCTAssertEqual(host.stats().downloads_started, 0, "nothing starts while the list moves")
        XCTAssertEqual(host.stats().in_flight, 0)

        XCTAssertEqual(lazyimg_set_scroll_state(host.loader, LAZYIMG_SCROLL_IDLE, 0), LAZYIMG_OK)
        host.dispatch(until: wanted.count)
        for (row, ticket) in wanted {
            let event = try XCTUnwrap(host.events.first { $0.ticket == ticket })
            XCTAssertEqual(event.row, row)
            // Rows that scrolled away were cancelled; the last screen loaded.
            XCTAssertEqual(event.status, row >= 40 ? LAZYIMG_OK : LAZYIMG_E_CANCELLED, "row \(row)")
        }
        XCTAssertEqual(server.totalHits, 8, "only the 8 visible rows, once each")
        for row in 40..<48 { XCTAssertEqual(server.hits("/\(row).jpg"), 1) }
        XCTAssertEqual(host.stats().deferred, 40)
    }

    func testHTTPErrorsFailTheTicketAndAnswerAtOnceUntilRetry() throws {
        server.serve("/gone.jpg", body: Array("nope".utf8), status: 404)
        let host = try CHost { $0.retry_after_ms = 60_000 }
        XCTAssertEqual(host.setItems([server.url("/gone.jpg"), server.url("/gone.jpg")]), LAZYIMG_OK)
        let first = host.request(0)
        host.dispatch(until: 1)
        XCTAssertEqual(host.events.first?.ticket, first.ticket)
        XCTAssertEqual(host.events.first?.type, LAZYIMG_EVENT_FAILED)
        XCTAssertEqual(host.events.first?.status, LAZYIMG_E_HTTP)
        XCTAssertEqual(host.events.first?.httpStatus, 404)
        XCTAssertEqual(host.request(1).status, LAZYIMG_E_HTTP, "failed moments ago: at once, no event")
        XCTAssertEqual(server.hits("/gone.jpg"), 1)
        XCTAssertEqual(host.stats().downloads_failed, 1)
    }

    func testFailedURLsAreTriedAgainAfterTheBackoff() throws {
        // 410 is not retried by itself, so the failure record is what is tested here.
        server.serve("/flaky.png", body: [], status: 410)
        let host = try CHost { $0.retry_after_ms = 1 }
        XCTAssertEqual(host.setItems([server.url("/flaky.png")]), LAZYIMG_OK)
        _ = host.request(0)
        host.dispatch(until: 1)
        XCTAssertEqual(host.events.first?.status, LAZYIMG_E_HTTP)
        server.serve("/flaky.png", body: makePNG(width: 8, height: 8))
        // The record lasts 1 ms; the request a moment later is tried for real.
        var answer = host.request(0)
        while answer.status == LAZYIMG_E_HTTP { answer = host.request(0) }
        XCTAssertEqual(answer.status, LAZYIMG_PENDING)
        host.dispatch(until: 2)
        XCTAssertEqual(host.events.last?.type, LAZYIMG_EVENT_IMAGE)
        XCTAssertEqual(server.hits("/flaky.png"), 2)
    }

    func testASlowServerPastTheTimeoutIsANetworkError() throws {
        server.serveGated("/slow.jpg", body: makeJPEG(width: 8, height: 8))
        let host = try CHost { $0.timeout_ms = 300 }
        XCTAssertEqual(host.setItems([server.url("/slow.jpg")]), LAZYIMG_OK)
        _ = host.request(0)
        host.dispatch(until: 1)
        XCTAssertEqual(host.events.first?.status, LAZYIMG_E_NETWORK)
    }

    func testBodiesThatAreNotImagesOrAreCutOrTooLargeFailClearly() throws {
        let jpeg = makeJPEG(width: 200, height: 200)
        server.serve("/page.html", body: Array("<html><body>hello</body></html>".utf8), contentType: "image/jpeg")
        // Cut before its first scan: nothing to show. (Cut inside its scan, it shows
        // the rows it has, flagged damaged: DamagedImageEndToEndTests.)
        server.serve("/cut.jpg", body: Array(jpeg.prefix(100)))
        server.serve("/big.jpg", body: jpeg)
        server.serve("/huge.png", body: hugeHeaderPNG())
        let host = try CHost { $0.max_response_bytes = UInt64(jpeg.count - 1) }
        let paths = ["/page.html", "/cut.jpg", "/big.jpg", "/huge.png"]
        XCTAssertEqual(host.setItems(paths.map { server.url($0) }), LAZYIMG_OK)
        let tickets = (0..<paths.count).map { host.request($0).ticket }
        host.dispatch(until: paths.count)
        func status(_ row: Int) -> lazyimg_status? { host.events.first { $0.ticket == tickets[row] }?.status }
        XCTAssertEqual(status(0), LAZYIMG_E_UNSUPPORTED, "sniffed from the bytes, not Content-Type")
        XCTAssertEqual(status(1), LAZYIMG_E_DECODE)
        XCTAssertEqual(status(2), LAZYIMG_E_TOO_LARGE)
        XCTAssertEqual(status(3), LAZYIMG_E_TOO_LARGE)
    }

    func testRowsThatLeaveCancelTheirDownloadInFlight() throws {
        server.serveGated("/held.jpg", body: makeJPEG(width: 8, height: 8))
        let host = try CHost { $0.prefetch_rows = 0 }
        XCTAssertEqual(host.setItems([server.url("/held.jpg")] + (1..<100).map { _ in nil }), LAZYIMG_OK)
        XCTAssertEqual(lazyimg_set_visible_range(host.loader, 0, 5), LAZYIMG_OK)
        let ticket = host.request(0).ticket
        XCTAssertTrue(server.waitForHits("/held.jpg", count: 1, timeoutMilliseconds: 10_000))
        XCTAssertEqual(lazyimg_set_visible_range(host.loader, 50, 5), LAZYIMG_OK)
        host.dispatch(until: 1)
        XCTAssertEqual(host.events.first?.ticket, ticket)
        XCTAssertEqual(host.events.first?.status, LAZYIMG_E_CANCELLED)
        XCTAssertTrue(server.waitForClosedConnections(count: 1, timeoutMilliseconds: 10_000),
                      "libcurl dropped the connection of the cancelled transfer")
        XCTAssertEqual(host.stats().downloads_cancelled, 1)
        XCTAssertEqual(host.stats().in_flight, 0)
    }

    func testDestroyWithDownloadsInFlightReturnsAndEndsEveryTicket() throws {
        server.serveGated("/a.jpg", body: makeJPEG(width: 8, height: 8))
        server.serveGated("/b.jpg", body: makeJPEG(width: 8, height: 8))
        for delivery in [LAZYIMG_DELIVERY_HOST, LAZYIMG_DELIVERY_THREAD] {
            let host = try CHost { $0.delivery = delivery }
            XCTAssertEqual(host.setItems([server.url("/a.jpg"), server.url("/b.jpg")]), LAZYIMG_OK)
            let tickets = [host.request(0).ticket, host.request(1).ticket]
            XCTAssertTrue(server.waitForHits("/b.jpg", count: 1, timeoutMilliseconds: 10_000))
            XCTAssertEqual(host.destroy(), LAZYIMG_OK)
            XCTAssertEqual(host.events.map(\.ticket).sorted(), tickets.sorted())
            XCTAssertTrue(host.events.allSatisfy { $0.status == LAZYIMG_E_CANCELLED })
            server.stop()
            server = try HTTPTestServer()
            server.serveGated("/a.jpg", body: makeJPEG(width: 8, height: 8))
            server.serveGated("/b.jpg", body: makeJPEG(width: 8, height: 8))
        }
    }

    func testFileURLsHeadersAndUserAgent() throws {
        let file = try TemporaryFile(bytes: makePNG(width: 10, height: 10))
        defer { file.remove() }
        server.serve("/h.png", body: makePNG(width: 4, height: 4))
        let host = try withCStrings(["X-Api-Key: 42", nil]) { headers in
            try CHost { config in
                config.http_headers = headers
                config.allow_file_urls = 1
                config.user_agent = UnsafePointer(strdup("lazyimg-tests/1"))  // leaked on purpose: 16 bytes
            }
        }
        XCTAssertEqual(host.setItems([file.url, server.url("/h.png")]), LAZYIMG_OK)
        _ = host.request(0)
        _ = host.request(1)
        host.dispatch(until: 2)
        XCTAssertTrue(host.events.allSatisfy { $0.type == LAZYIMG_EVENT_IMAGE })
        XCTAssertEqual(host.events.first { $0.row == 0 }?.httpStatus, 0, "no HTTP for file://")
        let seen = try XCTUnwrap(server.requests("/h.png").first)
        XCTAssertEqual(seen.header("User-Agent"), "lazyimg-tests/1")
        XCTAssertEqual(seen.header("X-Api-Key"), "42")
    }

    func testThreadDeliveryEndToEnd() throws {
        server.serve("/t.jpg", body: makeJPEG(width: 16, height: 16))
        let arrived = expectation(description: "image event")
        let host = try CHost { $0.delivery = LAZYIMG_DELIVERY_THREAD }
        host.onEvent = { _, event in if event.type == LAZYIMG_EVENT_IMAGE { arrived.fulfill() } }
        XCTAssertEqual(host.setItems([server.url("/t.jpg")]), LAZYIMG_OK)
        XCTAssertEqual(host.request(0).status, LAZYIMG_PENDING)
        wait(for: [arrived], timeout: 15)
        XCTAssertEqual(host.request(0).status, LAZYIMG_OK)
    }

    /// A valid PNG whose header claims 100000 x 100000 pixels and holds no pixel data.
    private func hugeHeaderPNG() -> [UInt8] {
        var png = makePNG(width: 1, height: 1)
        // IHDR data starts at byte 16: width, height big-endian; its CRC covers type+data.
        for (offset, value) in [(16, UInt32(100_000)), (20, UInt32(100_000))] {
            withUnsafeBytes(of: value.bigEndian) { for i in 0..<4 { png[offset + i] = $0[i] } }
        }
        let crc = pngCRC(png[12..<29])
        withUnsafeBytes(of: crc.bigEndian) { for i in 0..<4 { png[29 + i] = $0[i] } }
        return png
    }
}
#endif
