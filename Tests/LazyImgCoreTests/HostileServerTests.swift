#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_3 // ThreadSanitizer group 3 (see the Makefile's tsan)
import LazyImgCore
import TestSupport
import XCTest

/// What a hostile server can try against the network layer, with real libcurl
/// against the loopback server: lies about sizes, redirects that move secrets or
/// downgrade TLS.
final class HostileServerTests: XCTestCase {
    private var server: HTTPTestServer!
    private var loader: CurlDataLoader!

    override func setUpWithError() throws {
        server = try HTTPTestServer()
        loader = try XCTUnwrap(CurlDataLoader(maxConcurrentTransfers: 2))
    }

    override func tearDown() {
        loader?.shutdown()
        server?.stop()
    }

    /// One transfer, waited for on an expectation.
    private func fetch(_ request: DataRequest) -> DataResponse? {
        let done = expectation(description: "completion")
        let box = Locked<DataResponse?>(nil)
        loader.start(1, request) { _, response in
            box.withLock { $0 = response }
            done.fulfill()
        }
        wait(for: [done], timeout: 15)
        return box.withLock { $0 }
    }

    func testAnnounced64GiBWithNoLimitDoesNotAllocateIt() throws {
        // Before: the body reserved min(Content-Length, limit) bytes up front, and with
        // no useful limit that was 64 GiB: the allocation aborted the whole process.
        server.serve("/huge", body: [1, 2, 3], framing: .declaredLength(64 << 30))
        let response = try XCTUnwrap(fetch(DataRequest(url: server.url("/huge"), maxResponseBytes: Int.max)))
        XCTAssertEqual(response.error, .network, "the body ended short of its announced length")
        XCTAssertEqual(response.bytesReceived, 3)
    }
}


private extension DataResponse {
    var error: LoaderError? {
        if case .failure(let error) = result { return error }
        return nil
    }
}

/// Custom headers are scoped to origins; redirects are followed hop by hop.
extension HostileServerTests {
    private func other() throws -> HTTPTestServer {
        let other = try HTTPTestServer()
        addTeardownBlock { other.stop() }
        return other
    }

    func testHeadersDoNotFollowARedirectToAnotherOrigin() throws {
        let elsewhere = try other()
        elsewhere.serve("/img", body: [9])
        server.redirect("/start", to: elsewhere.url("/img"))
        server.serve("/same", body: [8])
        server.redirect("/moved", to: "/same")
        let secret = ["X-Api-Key: s3cret", "Authorization: Bearer t"]
        // Before, libcurl followed and sent X-Api-Key on to the other host.
        let response = try XCTUnwrap(fetch(DataRequest(url: server.url("/start"), headers: secret)))
        XCTAssertEqual(try response.result.get(), [9])
        XCTAssertEqual(server.requests("/start").first?.header("X-Api-Key"), "s3cret")
        let hop = try XCTUnwrap(elsewhere.requests("/img").first)
        XCTAssertNil(hop.header("X-Api-Key"), "another port is another origin")
        XCTAssertNil(hop.header("Authorization"))
        // Within one origin the headers stay.
        XCTAssertEqual(try fetch(DataRequest(url: server.url("/moved"), headers: secret))?.result.get(), [8])
        XCTAssertEqual(server.requests("/same").first?.header("X-Api-Key"), "s3cret")
    }

    func testHeadersGoOnlyToListedOrigins() throws {
        let listed = try other()
        listed.serve("/img", body: [7])
        server.redirect("/start", to: listed.url("/img"))
        var policy = NetworkPolicy()
        policy.headerOrigins = [try XCTUnwrap(Origin(configured: "http://127.0.0.1:\(listed.port)"))]
        let response = fetch(DataRequest(url: server.url("/start"), headers: ["X-Api-Key: k"], policy: policy))
        XCTAssertEqual(try response?.result.get(), [7])
        XCTAssertNil(server.requests("/start").first?.header("X-Api-Key"), "not listed")
        XCTAssertEqual(listed.requests("/img").first?.header("X-Api-Key"), "k", "listed, reached by a redirect")
    }

    func testTheBodiesOfAllHopsShareOneLimit() throws {
        // Before: each hop had max_response_bytes of its own, 6 times it in all.
        let page = [UInt8](repeating: 0x41, count: 600_000)
        let redirect = "HTTP/1.1 302 Found\r\nLocation: /end\r\nContent-Length: \(page.count)\r\n\r\n"
        server.serveRaw("/big-redirect", Array(redirect.utf8) + page)
        server.serve("/end", body: page)
        let response = try XCTUnwrap(fetch(DataRequest(url: server.url("/big-redirect"), maxResponseBytes: 1_000_000)))
        XCTAssertEqual(response.error, .tooLarge)
        XCTAssertLessThanOrEqual(response.bytesReceived, 1_000_000 + 16 << 10, "cut at the limit (and a chunk)")
        let within = try XCTUnwrap(fetch(DataRequest(url: server.url("/big-redirect"), maxResponseBytes: 1_200_000)))
        XCTAssertEqual(try within.result.get(), page, "the redirect's page is counted but not kept")
        XCTAssertEqual(within.bytesReceived, 1_200_000)
    }

    func testRedirectsToOtherProtocolsAreRefused() throws {
        let elsewhere = try other()
        for scheme in ["file", "ftp", "gopher", "dict", "scp", "sftp", "ldap", "telnet", "tftp", "smb"] {
            server.redirect("/to-\(scheme)", to: "\(scheme)://127.0.0.1:\(elsewhere.port)/img")
            XCTAssertEqual(fetch(DataRequest(url: server.url("/to-\(scheme)")))?.error, .badURL, scheme)
        }
        XCTAssertEqual(elsewhere.connectionsAccepted, 0, "no hop left http(s)")
    }

    func testHeadersStayWithTheirOriginAcrossHopsAndAwayFromUserInfoTricks() throws {
        let elsewhere = try other()
        server.redirect("/a", to: elsewhere.url("/b"))
        elsewhere.redirect("/b", to: server.url("/c"))
        server.serve("/c", body: [3])
        let secret = ["X-Api-Key: s3cret"]
        XCTAssertEqual(try fetch(DataRequest(url: server.url("/a"), headers: secret))?.result.get(), [3])
        XCTAssertEqual(server.requests("/a").first?.header("X-Api-Key"), "s3cret")
        XCTAssertNil(elsewhere.requests("/b").first?.header("X-Api-Key"), "never to B")
        XCTAssertEqual(server.requests("/c").first?.header("X-Api-Key"), "s3cret", "back on A, A's again")

        // The origin's own host:port as user info, the connection to another host.
        elsewhere.serve("/d", body: [4])
        server.redirect("/trick", to: "http://127.0.0.1:\(server.port)@127.0.0.1:\(elsewhere.port)/d")
        XCTAssertEqual(try fetch(DataRequest(url: server.url("/trick"), headers: secret))?.result.get(), [4])
        XCTAssertNil(elsewhere.requests("/d").first?.header("X-Api-Key"), "user info names no origin")
    }

    func testCompressedBodiesAreNeverInflated() throws {
        // 256 KiB of zeros in 289 bytes of gzip (and 277 of zlib): a bomb, had libcurl
        // been asked to decode; delivered as sent, within a 64 KiB limit.
        let gzip = hex("1f8b0800000000000203edc13101000000c2a0f54fed6d07a0") + [UInt8](repeating: 0, count: 254)
            + hex("de0022ea0ee200000400")
        let zlib = hex("78daedc13101000000c2a0f54fed6d07a0") + [UInt8](repeating: 0, count: 254) + hex("de00003c0001")
        for (encoding, body) in [("gzip", gzip), ("deflate", zlib), ("br", gzip)] {
            server.serve("/\(encoding)", body: body, headers: ["Content-Encoding: \(encoding)"])
            let response = try XCTUnwrap(fetch(DataRequest(url: server.url("/\(encoding)"), maxResponseBytes: 64 << 10)))
            XCTAssertEqual(try response.result.get(), body, encoding)
            XCTAssertNil(server.requests("/\(encoding)").first?.header("Accept-Encoding"))
        }
    }

    private func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16) ?? 0)
            index = next
        }
        return bytes
    }

    func testRedirectHopsCountBytesAndStopAtTheLimit() throws {
        server.serve("/end", body: [1, 2])
        server.redirect("/r0", to: "/end")
        let response = try XCTUnwrap(fetch(DataRequest(url: server.url("/r0"))))
        XCTAssertEqual(try response.result.get(), [1, 2])
        XCTAssertEqual(response.httpStatus, 200)
        server.redirect("/loop", to: "/loop")
        XCTAssertEqual(fetch(DataRequest(url: server.url("/loop")))?.error, .protocolViolation(.tooManyRedirects))
        XCTAssertEqual(server.hits("/loop"), 6, "the first request and 5 redirects")
    }
}
#endif
