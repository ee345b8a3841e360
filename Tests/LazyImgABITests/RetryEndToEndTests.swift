#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_4 // ThreadSanitizer group 4 (see the Makefile's tsan)
import CLazyImgHeader
import TestSupport
import XCTest

/// A transient failure retried for real: libcurl against the loopback server, which
/// answers 503 with a Retry-After and then the image.
final class RetryEndToEndTests: XCTestCase {
    private var server: HTTPTestServer!

    override func setUpWithError() throws {
        server = try HTTPTestServer()
    }

    override func tearDown() {
        server.stop()
    }

    func testA503IsRetriedAfterItsRetryAfterAndTheTicketGetsTheImage() throws {
        // Retry-After: 1 keeps the second request at least a second away, so the route
        // is swapped before it comes.
        server.serve("/busy.png", body: Array("busy".utf8), status: 503, headers: ["Retry-After: 1"])
        let host = try CHost()
        XCTAssertEqual(host.setItems([server.url("/busy.png")]), LAZYIMG_OK)
        let ticket = host.request(0).ticket
        XCTAssertTrue(server.waitForHits("/busy.png", count: 1, timeoutMilliseconds: 10_000))
        server.serve("/busy.png", body: makePNG(width: 8, height: 8))
        host.dispatch(until: 1)
        XCTAssertEqual(host.events.map(\.ticket), [ticket], "one event for the ticket, after the retry")
        XCTAssertEqual(host.events.first?.type, LAZYIMG_EVENT_IMAGE)
        XCTAssertEqual(host.events.first?.width, 8)
        XCTAssertEqual(server.hits("/busy.png"), 2)
        XCTAssertEqual(host.stats().downloads_failed, 1)
        XCTAssertEqual(host.stats().downloads_retried, 1)
        XCTAssertEqual(host.stats().downloads_started, 2)
    }

    func testABodyTheNetworkCutOffIsResumedByItsRetryAndCountedInBytesResumed() throws {
        let jpeg = makeNoiseJPEG(width: 200, height: 150)
        let cut = jpeg.count / 2
        server.serveRanges("/cut.jpg", body: jpeg, validator: "\"c1\"", cutAfter: cut)
        let host = try CHost()
        XCTAssertEqual(host.setItems([server.url("/cut.jpg")]), LAZYIMG_OK)
        let ticket = host.request(0).ticket
        host.dispatch(until: 1)
        XCTAssertEqual(host.events.map(\.ticket), [ticket])
        XCTAssertEqual(host.events.first?.type, LAZYIMG_EVENT_IMAGE, host.events.first?.message ?? "")
        XCTAssertEqual(host.events.first?.httpStatus, 200)
        XCTAssertEqual(server.requests("/cut.jpg").map { $0.header("Range") }, [nil, "bytes=\(cut)-"])
        let stats = host.stats()
        XCTAssertEqual(stats.downloads_retried, 1)
        XCTAssertEqual(stats.bytes_resumed, UInt64(cut))
        XCTAssertEqual(stats.bytes_downloaded, UInt64(jpeg.count), "the cut part and the rest, each once")
    }
}
#endif
