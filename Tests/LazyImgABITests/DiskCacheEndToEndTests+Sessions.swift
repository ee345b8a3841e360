#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_1 // ThreadSanitizer group 1 (see the Makefile's tsan)
import CLazyImgHeader
import Glibc
import TestSupport
import XCTest

/// Loaders sharing a session: one download per URL across loaders and boxes, one
/// disk cache, and a session that lives as long as its loaders. (An extension, not a
/// class: see DiskCacheTests+HTTPPolicy.swift on ThreadSanitizer's test listing.)
extension DiskCacheEndToEndTests {
    private func makeSession(diskCache: Bool = false) throws -> OpaquePointer {
        var config = lazyimg_config()
        lazyimg_config_init(&config)
        var session: OpaquePointer?
        let path = directory.path + "/cache"
        let status = path.withCString { dir in
            if diskCache { config.disk_cache_dir = dir }
            return lazyimg_session_create(&config, &session)
        }
        XCTAssertEqual(status, LAZYIMG_OK)
        return try XCTUnwrap(session)
    }

    private func makeSessionHost(_ session: OpaquePointer, box: UInt32) throws -> CHost {
        try CHost { config in
            config.session = session
            config.target_width = box
            config.target_height = box
        }
    }

    /// Two loaders of one session (boxes 64 and 32) both asking for one held URL,
    /// whose request has reached the server.
    private func twoLoadersWaitingForOneDownload(_ session: OpaquePointer) throws -> (CHost, CHost) {
        server.serveGated("/shared.jpg", body: makeJPEG(width: 200, height: 150))
        let hosts = (try makeSessionHost(session, box: 64), try makeSessionHost(session, box: 32))
        for host in [hosts.0, hosts.1] {
            XCTAssertEqual(host.setItems([server.url("/shared.jpg")]), LAZYIMG_OK)
            XCTAssertEqual(host.request(0).status, LAZYIMG_PENDING)
        }
        XCTAssertTrue(server.waitForHits("/shared.jpg", count: 1, timeoutMilliseconds: 10_000))
        // Each loader's scheduler has started its part of the one download.
        for host in [hosts.0, hosts.1] { host.waitUntil("the download started") { host.stats().in_flight == 1 } }
        return hosts
    }

    func testALoaderOfASessionReadsFileURLsWhenAllowed() throws {
        let session = try makeSession()
        defer { lazyimg_session_destroy(session) }
        let path = directory.path + "/local.jpg"
        let jpeg = makeJPEG(width: 40, height: 30)
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(jpeg)))
        for allowed: Int32 in [1, 0] {
            let host = try CHost { config in
                config.session = session
                config.allow_file_urls = allowed
            }
            XCTAssertEqual(host.setItems(["file://" + path]), LAZYIMG_OK)
            let answer = host.request(0)
            if allowed == 1 {
                XCTAssertEqual(answer.status, LAZYIMG_PENDING)
                host.dispatch(until: 1)
                XCTAssertEqual(host.events.first?.type, LAZYIMG_EVENT_IMAGE, "\(host.events)")
                XCTAssertEqual(host.events.first.map { [$0.width, $0.height] }, [40, 30])
            } else {
                XCTAssertEqual(answer.status, LAZYIMG_E_BAD_URL)
            }
        }
    }

    func testTwoLoadersWithDifferentBoxesOnOneURLCostOneDownload() throws {
        let session = try makeSession()
        defer { lazyimg_session_destroy(session) }
        let (list, detail) = try twoLoadersWaitingForOneDownload(session)
        server.release("/shared.jpg")
        list.dispatch(until: 1)
        detail.dispatch(until: 1)
        XCTAssertEqual(server.hits("/shared.jpg"), 1, "one download for both loaders")
        XCTAssertEqual(list.events.first.map { [$0.width, $0.height] }, [64, 48])
        XCTAssertEqual(detail.events.first.map { [$0.width, $0.height] }, [32, 24])
        XCTAssertEqual(detail.events.first?.source, LAZYIMG_SOURCE_NETWORK)
    }

    func testALoaderThatLeavesDoesNotStopTheOthersDownload() throws {
        let session = try makeSession()
        defer { lazyimg_session_destroy(session) }
        let (leaving, staying) = try twoLoadersWaitingForOneDownload(session)
        XCTAssertEqual(leaving.destroy(), LAZYIMG_OK)
        XCTAssertEqual(leaving.events.first?.status, LAZYIMG_E_CANCELLED)
        server.release("/shared.jpg")
        staying.dispatch(until: 1)
        XCTAssertEqual(staying.events.first?.type, LAZYIMG_EVENT_IMAGE)
        XCTAssertEqual(server.hits("/shared.jpg"), 1)
    }

    func testLoadersOfASessionShareItsDiskCacheAndOutliveTheHostsReference() throws {
        server.serve("/p.jpg", body: makeJPEG(width: 120, height: 90))
        let session = try makeSession(diskCache: true)
        let first = try makeSessionHost(session, box: 64)
        let second = try makeSessionHost(session, box: 64)
        lazyimg_session_destroy(session)  // the loaders keep it alive
        XCTAssertEqual(first.setItems([server.url("/p.jpg")]), LAZYIMG_OK)
        XCTAssertEqual(first.request(0).status, LAZYIMG_PENDING)
        first.dispatch(until: 1)
        XCTAssertEqual(first.destroy(), LAZYIMG_OK, "its disk writes are done")
        XCTAssertEqual(second.setItems([server.url("/p.jpg")]), LAZYIMG_OK)
        XCTAssertEqual(second.request(0).status, LAZYIMG_PENDING)
        second.dispatch(until: 1)
        XCTAssertEqual(second.events.first?.source, LAZYIMG_SOURCE_DISK)
        XCTAssertEqual(server.hits("/p.jpg"), 1)
    }

    func testALoaderAskingJustAfterAnothersDownloadEndedUsesItsResponse() throws {
        server.serve("/q.jpg", body: makeJPEG(width: 120, height: 90))
        let session = try makeSession(diskCache: true)
        defer { lazyimg_session_destroy(session) }
        let list = try makeSessionHost(session, box: 64)
        let detail = try makeSessionHost(session, box: 256)
        XCTAssertEqual(list.setItems([server.url("/q.jpg")]), LAZYIMG_OK)
        XCTAssertEqual(detail.setItems([server.url("/q.jpg")]), LAZYIMG_OK)
        XCTAssertEqual(list.request(0).status, LAZYIMG_PENDING)
        list.dispatch(until: 1)
        // The list shows its image; its disk write may not have begun.
        XCTAssertEqual(detail.request(0).status, LAZYIMG_PENDING)
        detail.dispatch(until: 1)
        XCTAssertEqual(detail.events.first?.type, LAZYIMG_EVENT_IMAGE)
        XCTAssertEqual(detail.events.first?.width, 120, "the whole picture: it fits the detail's box")
        XCTAssertEqual(server.hits("/q.jpg"), 1, "one download for both loaders")
    }

    func testSessionCreationErrors() throws {
        XCTAssertEqual(lazyimg_session_create(nil, nil), LAZYIMG_E_INVALID_ARGUMENT)
        var session: OpaquePointer?
        XCTAssertEqual(lazyimg_session_create(nil, &session), LAZYIMG_OK, "NULL config: defaults")
        lazyimg_session_destroy(session)
        lazyimg_session_destroy(nil)
        let file = try TemporaryFile(bytes: [1])
        defer { file.remove() }
        var config = lazyimg_config()
        lazyimg_config_init(&config)
        XCTAssertNil(config.session)
        session = nil
        let status = file.path.withCString { path in
            config.disk_cache_dir = path
            return lazyimg_session_create(&config, &session)
        }
        XCTAssertEqual(status, LAZYIMG_E_IO)
        XCTAssertNil(session)
    }
}
#endif
