#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_2 // ThreadSanitizer group 2 (see the Makefile's tsan)
import CLazyImgHeader
import Glibc
import TestSupport
import XCTest

/// The C API fed by an untrusted list and hostile servers: real libcurl against the
/// loopback server, through lazyimg_request and events as a host sees them.
final class UntrustedFeedTests: XCTestCase {
    private var server: HTTPTestServer!

    override func setUpWithError() throws {
        server = try HTTPTestServer()
    }

    override func tearDown() {
        server.stop()
    }

    /// Requests every row and dispatches until each has its event.
    private func load(_ host: CHost, _ urls: [String]) -> [ReceivedEvent] {
        XCTAssertEqual(host.setItems(urls), LAZYIMG_OK)
        var pending = 0
        for row in urls.indices where host.request(row).status == LAZYIMG_PENDING { pending += 1 }
        host.dispatch(until: pending)
        return host.events.sorted { $0.row < $1.row }
    }

    func testNoLimitIsCappedSoA64GiBAnnouncementIsRefused() throws {
        server.serve("/huge.png", body: [1, 2, 3], framing: .declaredLength(64 << 30))
        let host = try CHost { $0.max_response_bytes = UInt64.max }
        let events = load(host, [server.url("/huge.png")])
        XCTAssertEqual(events.map(\.status), [LAZYIMG_E_TOO_LARGE], "UINT64_MAX means the 1 GiB cap")
    }
}

/// Replies that break HTTP fail as PROTOCOL, the server's fault, and are never retried.
extension UntrustedFeedTests {
    func testARedirectLoopIsAProtocolErrorAndIsNotRetried() throws {
        // Before: NETWORK, retried 3 times: 24 requests for one row.
        server.redirect("/loop.png", to: "/loop.png")
        let events = load(try CHost(), [server.url("/loop.png")])
        XCTAssertEqual(events.map(\.status), [LAZYIMG_E_PROTOCOL])
        XCTAssertEqual(events.first?.message, "protocol error: more than 5 redirects (a loop?)")
        XCTAssertEqual(events.first?.httpStatus, 302)
        XCTAssertEqual(server.hits("/loop.png"), 6, "the request and 5 redirects, once")
        XCTAssertTrue(String(cString: lazyimg_strerror(LAZYIMG_E_PROTOCOL)).contains("broke HTTP"))
    }

    func testEachBrokenReplySaysWhatBrokeInItsEvent() throws {
        server.serveRaw("/nocontent.png", Array("HTTP/1.1 204 No Content\r\n\r\n".utf8))
        server.serveRaw("/http09.png", Array("\u{89}PNG raw bytes".utf8))
        let big = "HTTP/1.1 200 OK\r\nSet-Cookie: a=" + String(repeating: "b", count: 1 << 20) + "\r\n\r\n"
        server.serveRaw("/cookie.png", Array(big.utf8))
        let events = load(try CHost(), ["/nocontent.png", "/http09.png", "/cookie.png"].map { server.url($0) })
        XCTAssertEqual(events.map(\.status), Array(repeating: LAZYIMG_E_PROTOCOL, count: 3))
        XCTAssertEqual(events.map(\.message), [
            "protocol error: status 204 has no image for this request",
            "protocol error: not an HTTP/1.x reply (HTTP/0.9, a malformed or 1xx status line)",
            "protocol error: response headers too large",
        ])
        XCTAssertEqual(server.totalHits, 3, "none retried")
    }
}

/// file:// from a feed: refused unless the host opts in, and then never a hang.
extension UntrustedFeedTests {
    func testFileURLsAreRefusedByDefault() throws {
        let host = try CHost()
        XCTAssertEqual(host.setItems(["file:///etc/passwd", "FILE:///etc/hostname"]), LAZYIMG_OK)
        XCTAssertEqual(host.request(0).status, LAZYIMG_E_BAD_URL, "no event says whether the file exists")
        XCTAssertEqual(host.request(1).status, LAZYIMG_E_BAD_URL)
        XCTAssertEqual(host.stats().downloads_started, 0)
        XCTAssertEqual(host.events.count, 0)
        XCTAssertTrue(String(cString: lazyimg_strerror(LAZYIMG_E_BAD_URL)).contains("allow_file_urls"))
    }

    func testFIFOWithFileURLsOnFailsPromptlyAndHTTPRowsStillLoad() throws {
        let fifo = "/tmp/lazyimg-feed-fifo-\(getpid())"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        defer { unlink(fifo) }
        let image = try TemporaryFile(bytes: makePNG(width: 8, height: 8))
        defer { image.remove() }
        server.serve("/a.png", body: makePNG(width: 4, height: 4))
        server.serve("/b.jpg", body: makeJPEG(width: 4, height: 4))
        let host = try CHost { $0.allow_file_urls = 1 }
        // Before, libcurl's file handler blocked the network thread in open() on the
        // FIFO: no event ever came, the HTTP rows stalled and destroy hung.
        let events = load(host, ["file://" + fifo, server.url("/a.png"), "file:///dev/null", server.url("/b.jpg"),
                                 image.url])
        XCTAssertEqual(events.map(\.status), [LAZYIMG_E_IO, LAZYIMG_OK, LAZYIMG_E_IO, LAZYIMG_OK, LAZYIMG_OK])
        XCTAssertEqual(events.last?.width, 8, "a regular file still loads")
        XCTAssertEqual(host.destroy(), LAZYIMG_OK)
    }

    func testAllowFileURLsTakesOnlyZeroOrOne() throws {
        var config = lazyimg_config()
        lazyimg_config_init(&config)
        XCTAssertEqual(config.allow_file_urls, 0)
        config.allow_file_urls = 2
        var out: OpaquePointer?
        XCTAssertEqual(lazyimg_loader_create(&config, &out), LAZYIMG_E_INVALID_ARGUMENT)
    }
}

/// URLs are bytes: never repaired, never normalised, handed to libcurl as given
/// (which percent-encodes bytes past ASCII on the wire, losslessly).
extension UntrustedFeedTests {
    func testCanonicallyEquivalentURLsAreTwoImages() throws {
        server.serve("/caf%c3%a9.png", body: makePNG(width: 4, height: 4))
        server.serve("/cafe%cc%81.png", body: makePNG(width: 6, height: 6))
        let nfc = server.url("/caf\u{E9}.png")
        let nfd = server.url("/cafe\u{301}.png")
        XCTAssertEqual(nfc, nfd, "Swift calls them equal")
        let host = try CHost()
        // Before, both rows shared one key and one download, and both got the NFC file.
        let events = load(host, [nfc, nfd])
        XCTAssertEqual(events.map(\.width), [4, 6])
        XCTAssertEqual(host.stats().downloads_started, 2)
        XCTAssertEqual(server.hits("/caf%c3%a9.png"), 1)
        XCTAssertEqual(server.hits("/cafe%cc%81.png"), 1)
        var image: OpaquePointer?
        XCTAssertEqual(lazyimg_lookup_url(host.loader, nfd, &image), LAZYIMG_OK)
        XCTAssertEqual(lazyimg_image_width(image), 6, "the cache keeps them apart too")
        lazyimg_image_release(image)
    }

    func testBytesPastASCIIInTheQueryArePercentEncodedOnTheWire() throws {
        // Before: libcurl encoded the path's but sent the query's raw.
        server.serve("/q.png", body: makePNG(width: 3, height: 3))
        let host = try CHost()
        let url = Array(server.url("/q.png?name=caf\u{E9}&raw=").utf8) + [0xFF]
        let copy = strdup((url + [0]).map { CChar(bitPattern: $0) })
        defer { free(copy) }
        var row: UnsafePointer<CChar>? = UnsafePointer(copy)
        XCTAssertEqual(lazyimg_set_items(host.loader, &row, 1), LAZYIMG_OK)
        XCTAssertEqual(host.request(0).status, LAZYIMG_PENDING)
        host.dispatch(until: 1)
        XCTAssertEqual(server.requests("/q.png").map(\.target), ["/q.png?name=caf%c3%a9&raw=%ff"])
        var image: OpaquePointer?
        XCTAssertEqual(lazyimg_lookup_url(host.loader, copy, &image), LAZYIMG_OK, "keyed by the bytes given")
        lazyimg_image_release(image)
    }

    func testInvalidUTF8BytesReachTheServerUnrepaired() throws {
        let prefix = Array(server.url("/raw-").utf8)
        let host = try CHost()
        let copies = [prefix + [0xFF], prefix + [0xFE]].map { strdup(($0 + [0]).map { CChar(bitPattern: $0) }) }
        defer { copies.forEach { free($0) } }
        let pointers = copies.map { UnsafePointer($0) }
        XCTAssertEqual(pointers.withUnsafeBufferPointer { lazyimg_set_items(host.loader, $0.baseAddress, 2) }, LAZYIMG_OK)
        XCTAssertEqual(host.request(0).status, LAZYIMG_PENDING)
        XCTAssertEqual(host.request(1).status, LAZYIMG_PENDING)
        host.dispatch(until: 2)
        // Before, both were repaired to U+FFFD: one download of /raw-%ef%bf%bd.
        XCTAssertEqual(host.stats().downloads_started, 2)
        XCTAssertEqual(server.hits("/raw-%ff"), 1)
        XCTAssertEqual(server.hits("/raw-%fe"), 1)
        XCTAssertEqual(host.events.map(\.status), [LAZYIMG_E_HTTP, LAZYIMG_E_HTTP], "404: no such route")
    }
}
#endif
