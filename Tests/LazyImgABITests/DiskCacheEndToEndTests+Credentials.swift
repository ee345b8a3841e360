#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_1 // ThreadSanitizer group 1 (see the Makefile's tsan)
import CLazyImgHeader
import Glibc
import TestSupport
import XCTest

/// Responses fetched with credentials, through the C API against a loopback server
/// that answers per token: token A gets a 100 px wide image, token B a 60 px one,
/// anyone else 403. A response is never handed to a request with other or no
/// credentials, neither from the disk (loaders made one after another on one
/// directory, as processes would) nor within a session (one download per URL, and
/// the responses it keeps for reuse). (An extension, not a class: see
/// DiskCacheTests+HTTPPolicy.swift on ThreadSanitizer's test listing.)
extension DiskCacheEndToEndTests {
    private static let widthFor = ["Bearer A": UInt32(100), "Bearer B": 60]

    /// `/me.jpg`, an image per Authorization value.
    private func servePerToken(gated: Bool = false, cacheControl: String = "private, max-age=600") -> String {
        server.serveByHeader("/me.jpg", "Authorization",
                             bodies: Self.widthFor.mapValues { makeJPEG(width: Int($0), height: 50) },
                             headers: ["Cache-Control: \(cacheControl)"], gated: gated)
        return server.url("/me.jpg")
    }

    /// A loader whose http_headers are `headers` (box 256: the images keep their width).
    private func makeHost(headers: [String], diskCache: Bool = true, session: OpaquePointer? = nil,
                          _ configure: (inout lazyimg_config) -> Void = { _ in }) throws -> CHost {
        try (directory.path + "/cache").withCString { path in
            try withCStrings(headers + [nil]) { list in
                try CHost { config in
                    config.target_width = 256
                    config.target_height = 256
                    if diskCache { config.disk_cache_dir = path }
                    if !headers.isEmpty { config.http_headers = list }
                    config.session = session
                    configure(&config)
                }
            }
        }
    }

    /// Requests row 0 of `url` and waits for its event.
    private func loadRow(_ host: CHost, _ url: String) -> ReceivedEvent? {
        XCTAssertEqual(host.setItems([url]), LAZYIMG_OK)
        XCTAssertEqual(host.request(0).status, LAZYIMG_PENDING)
        host.dispatch(until: 1)
        return host.events.first
    }

    func testADiskEntryAnswersOnlyRequestsWithTheCredentialsThatFetchedIt() throws {
        let url = servePerToken()
        let first = try makeHost(headers: ["Authorization: Bearer A"])
        XCTAssertEqual(loadRow(first, url)?.width, 100)
        XCTAssertEqual(first.destroy(), LAZYIMG_OK, "waits for the disk write")

        let anonymous = try makeHost(headers: [])
        let refused = loadRow(anonymous, url)
        XCTAssertEqual(refused?.type, LAZYIMG_EVENT_FAILED, "no token: the server's 403, not token A's image")
        XCTAssertEqual(refused?.httpStatus, 403)
        XCTAssertEqual(anonymous.destroy(), LAZYIMG_OK)

        let other = try makeHost(headers: ["Authorization: Bearer B"])
        XCTAssertEqual(loadRow(other, url)?.width, 60, "token B: its own image")
        XCTAssertEqual(other.events.first?.source, LAZYIMG_SOURCE_NETWORK)
        XCTAssertEqual(other.destroy(), LAZYIMG_OK)
        XCTAssertEqual(server.hits("/me.jpg"), 3)

        // Each token's copy is on disk and answers that token alone.
        for (token, width) in Self.widthFor.sorted(by: { $0.key < $1.key }) {
            let again = try makeHost(headers: ["Authorization: \(token)"])
            XCTAssertEqual(loadRow(again, url)?.width, width, token)
            XCTAssertEqual(again.events.first?.source, LAZYIMG_SOURCE_DISK, token)
        }
        XCTAssertEqual(server.hits("/me.jpg"), 3, "no request for either")
    }

    func testAnyCustomHeaderAndWhereItMayGoSeparateEntries() throws {
        server.serve("/any.jpg", body: makeJPEG(width: 80, height: 40), headers: ["Cache-Control: max-age=600"])
        let url = server.url("/any.jpg")
        let configurations: [(headers: [String], origins: [String]?)] = [
            (["Cookie: session=1"], nil), (["Cookie: session=2"], nil), (["X-Token: 1"], nil),
            (["X-Token: 1"], ["https://images.invalid"]),
        ]
        for (headers, origins) in configurations {
            let host = try withCStrings((origins ?? []) + [nil]) { list in
                try makeHost(headers: headers) { if origins != nil { $0.http_headers_origins = list } }
            }
            XCTAssertEqual(loadRow(host, url)?.source, LAZYIMG_SOURCE_NETWORK, "\(headers) \(origins ?? [])")
            XCTAssertEqual(host.destroy(), LAZYIMG_OK)
        }
        XCTAssertEqual(server.hits("/any.jpg"), configurations.count)
        // Headers that go nowhere are no credentials: such a loader shares the entry of
        // one without headers.
        let anonymous = try makeHost(headers: [])
        XCTAssertEqual(loadRow(anonymous, url)?.source, LAZYIMG_SOURCE_NETWORK)
        XCTAssertEqual(anonymous.destroy(), LAZYIMG_OK)
        let nowhere = try withCStrings([nil]) { empty in try makeHost(headers: ["X-Token: 1"]) { $0.http_headers_origins = empty } }
        XCTAssertEqual(loadRow(nowhere, url)?.source, LAZYIMG_SOURCE_DISK)
    }

    func testTwoLoadersOfASessionWithOtherTokensNeitherJoinNorReuseEachOthersDownload() throws {
        let url = servePerToken(gated: true)
        let session = try makeSessionWithoutDisk()
        defer { lazyimg_session_destroy(session) }
        let a = try makeHost(headers: ["Authorization: Bearer A"], diskCache: false, session: session)
        let b = try makeHost(headers: ["Authorization: Bearer B"], diskCache: false, session: session)
        for host in [a, b] {
            XCTAssertEqual(host.setItems([url]), LAZYIMG_OK)
            XCTAssertEqual(host.request(0).status, LAZYIMG_PENDING)
        }
        XCTAssertTrue(server.waitForHits("/me.jpg", count: 2, timeoutMilliseconds: 10_000), "a download for each token")
        server.release("/me.jpg")
        a.dispatch(until: 1)
        b.dispatch(until: 1)
        XCTAssertEqual(a.events.first?.width, 100)
        XCTAssertEqual(b.events.first?.width, 60)

        // Just after: the session keeps both responses for reuse, each for its own.
        let alsoA = try makeHost(headers: ["Authorization: Bearer A"], diskCache: false, session: session)
        XCTAssertEqual(loadRow(alsoA, url)?.width, 100)
        XCTAssertEqual(server.hits("/me.jpg"), 2, "token A's kept response")
        let anonymous = try makeHost(headers: [], diskCache: false, session: session)
        XCTAssertEqual(loadRow(anonymous, url)?.httpStatus, 403, "no token: not a kept response")
        let c = try makeHost(headers: ["Authorization: Bearer C"], diskCache: false, session: session)
        XCTAssertEqual(loadRow(c, url)?.httpStatus, 403, "token C: not a kept response")
        XCTAssertEqual(server.hits("/me.jpg"), 4)
    }

    func testVaryIsHonouredAndVaryStarIsNeverStored() throws {
        server.serve("/ua.jpg", body: makeJPEG(width: 70, height: 40),
                     headers: ["Cache-Control: max-age=600", "Vary: Accept, User-Agent"])
        server.serve("/star.jpg", body: makeJPEG(width: 70, height: 40), headers: ["Cache-Control: max-age=600", "Vary: *"])
        func host(userAgent: String) throws -> CHost {
            try userAgent.withCString { agent in try makeHost(headers: []) { $0.user_agent = agent } }
        }
        // One copy per URL (and credentials), as a browser keeps: the last one fetched.
        let expected = [("one", LAZYIMG_SOURCE_NETWORK), ("one", LAZYIMG_SOURCE_DISK), ("two", LAZYIMG_SOURCE_NETWORK),
                        ("two", LAZYIMG_SOURCE_DISK), ("one", LAZYIMG_SOURCE_NETWORK)]
        for (agent, source) in expected {
            let loader = try host(userAgent: agent)
            XCTAssertEqual(loadRow(loader, server.url("/ua.jpg"))?.source, source, agent)
            XCTAssertEqual(loader.destroy(), LAZYIMG_OK)
        }
        XCTAssertEqual(server.hits("/ua.jpg"), 3)
        for _ in 0..<2 {
            let loader = try host(userAgent: "one")
            XCTAssertEqual(loadRow(loader, server.url("/star.jpg"))?.source, LAZYIMG_SOURCE_NETWORK)
            XCTAssertEqual(loader.destroy(), LAZYIMG_OK)
        }
        XCTAssertEqual(server.hits("/star.jpg"), 2)
    }

    private func makeSessionWithoutDisk() throws -> OpaquePointer {
        var config = lazyimg_config()
        lazyimg_config_init(&config)
        var session: OpaquePointer?
        XCTAssertEqual(lazyimg_session_create(&config, &session), LAZYIMG_OK)
        return try XCTUnwrap(session)
    }
}
#endif
