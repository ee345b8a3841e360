#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_2 // ThreadSanitizer group 2 (see the Makefile's tsan)
import CLazyImgHeader
import Glibc
import TestSupport
import XCTest

/// http_headers_origins, proxy and ca_file, set through lazyimg_config and seen to act
/// against loopback servers with real libcurl.
final class NetworkConfigTests: XCTestCase {
    private var server: HTTPTestServer!

    override func setUpWithError() throws {
        server = try HTTPTestServer()
    }

    override func tearDown() {
        server.stop()
    }

    private func loadAll(_ host: CHost, _ urls: [String]) {
        XCTAssertEqual(host.setItems(urls), LAZYIMG_OK)
        var pending = 0
        for row in urls.indices where host.request(row).status == LAZYIMG_PENDING { pending += 1 }
        host.dispatch(until: pending)
    }

    private func create(_ change: (inout lazyimg_config) -> Void) -> lazyimg_status {
        var config = lazyimg_config()
        lazyimg_config_init(&config)
        change(&config)
        var out: OpaquePointer?
        let status = lazyimg_loader_create(&config, &out)
        if status == LAZYIMG_OK { XCTAssertEqual(lazyimg_loader_destroy(out), LAZYIMG_OK) }
        return status
    }

    func testHeadersGoOnlyToTheNamedOrigins() throws {
        let named = try HTTPTestServer()
        defer { named.stop() }
        named.serve("/a.png", body: makePNG(width: 2, height: 2))
        server.serve("/b.png", body: makePNG(width: 2, height: 2))
        let host = try withCStrings(["X-Api-Key: 42", nil]) { headers in
            try withCStrings(["http://127.0.0.1:\(named.port)", nil]) { origins in
                try CHost { $0.http_headers = headers; $0.http_headers_origins = origins }
            }
        }
        loadAll(host, [named.url("/a.png"), server.url("/b.png")])
        XCTAssertEqual(named.requests("/a.png").first?.header("X-Api-Key"), "42")
        XCTAssertNil(server.requests("/b.png").first?.header("X-Api-Key"), "before, every row's host got it")
    }

    func testMalformedOriginsAreRefused() {
        for origin in ["127.0.0.1", "http://a.test/path", "http://a.test/?q", "http://user@a.test", "http://a b", ""] {
            let status = withCStrings([origin, nil]) { origins in create { $0.http_headers_origins = origins } }
            XCTAssertEqual(status, LAZYIMG_E_INVALID_ARGUMENT, origin)
        }
        let fine = withCStrings(["https://A.test", "http://a.test:8080/", "http://[::1]:9", nil]) { origins in
            create { $0.http_headers_origins = origins }
        }
        XCTAssertEqual(fine, LAZYIMG_OK)
    }

    func testExplicitProxyCarriesEveryRequest() throws {
        // The test server plays the proxy: a proxied GET names the absolute URL.
        server.serve("http://images.invalid/p.png", body: makePNG(width: 3, height: 3))
        let proxy = strdup("http://127.0.0.1:\(server.port)")
        defer { free(proxy) }
        let host = try CHost { $0.proxy = UnsafePointer(proxy) }
        loadAll(host, ["http://images.invalid/p.png"])
        XCTAssertEqual(host.events.map(\.status), [LAZYIMG_OK])
        XCTAssertEqual(server.hits("http://images.invalid/p.png"), 1)
    }

    func testEnvironmentProxyIsTheDefaultAndEmptyTurnsItOff() throws {
        server.serve("http://images.invalid/e.png", body: makePNG(width: 3, height: 3))
        setenv("http_proxy", "http://127.0.0.1:\(server.port)", 1)
        defer { unsetenv("http_proxy") }
        let viaEnvironment = try CHost()
        loadAll(viaEnvironment, ["http://images.invalid/e.png"])
        XCTAssertEqual(viaEnvironment.events.map(\.status), [LAZYIMG_OK], "NULL = the environment's proxy")

        let empty = strdup("")
        defer { free(empty) }
        let direct = try CHost { $0.proxy = UnsafePointer(empty); $0.timeout_ms = 5000 }
        loadAll(direct, ["http://images.invalid/e.png"])
        XCTAssertEqual(direct.events.map(\.status), [LAZYIMG_E_NETWORK], "\"\" = no proxy: .invalid does not resolve")
        XCTAssertEqual(server.hits("http://images.invalid/e.png"), 1, "only the first loader used the proxy")
    }

    func testCAFileMustBeReadableAndTLSHasItsOwnStatus() {
        let missing = strdup("/nonexistent/ca-\(getpid()).pem")
        defer { free(missing) }
        XCTAssertEqual(create { $0.ca_file = UnsafePointer(missing) }, LAZYIMG_E_INVALID_ARGUMENT)
        let bad = strdup("http://a.test\r\n")
        defer { free(bad) }
        XCTAssertEqual(create { $0.proxy = UnsafePointer(bad) }, LAZYIMG_E_INVALID_ARGUMENT)
        XCTAssertEqual(LAZYIMG_E_TLS.rawValue, -15)
        XCTAssertTrue(String(cString: lazyimg_strerror(LAZYIMG_E_TLS)).hasPrefix("TLS"))
    }
}

extension NetworkConfigTests {
    func testCAFileLetsAPrivateCAsServerThroughAndTLSFailuresSayTLS() throws {
        for trusted in [false, true] {
            guard let tls = try TLSTestServer() else { throw XCTSkip("openssl or python3 could not run a test TLS server") }
            defer { tls.stop() }
            let path = strdup(tls.certificatePath)
            defer { free(path) }
            let host = try CHost { if trusted { $0.ca_file = UnsafePointer(path) } }
            loadAll(host, [tls.url("/x.png")])
            let event = try XCTUnwrap(host.events.first)
            if trusted {
                // Past TLS: the body ("abc") is simply not an image.
                XCTAssertEqual(event.status, LAZYIMG_E_UNSUPPORTED)
                XCTAssertEqual(event.httpStatus, 200)
            } else {
                XCTAssertEqual(event.status, LAZYIMG_E_TLS)
                XCTAssertTrue(event.message.hasPrefix("TLS"), event.message)
            }
        }
    }
}
#endif
