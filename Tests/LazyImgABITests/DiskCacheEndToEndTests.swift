#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_1 // ThreadSanitizer group 1 (see the Makefile's tsan)
import CLazyImgHeader
import Glibc
import LazyImgCore
import TestSupport
import XCTest

/// The disk cache through the C API: real libcurl against the loopback server, real
/// JPEGs, one directory shared by loaders made one after another (restarts). The
/// server's hit counts prove what came from disk.
final class DiskCacheEndToEndTests: XCTestCase {
    var server: HTTPTestServer!
    var directory: TemporaryDirectory!
    private var directoryCString: UnsafeMutablePointer<CChar>!

    override func setUpWithError() throws {
        server = try HTTPTestServer()
        directory = try TemporaryDirectory()
        directoryCString = strdup(directory.path + "/cache")
    }

    override func tearDown() {
        server.stop()
        directory.remove()
        free(directoryCString)
    }

    private let colours: [(UInt8, UInt8, UInt8)] = [(200, 30, 30), (30, 200, 30), (30, 30, 200), (220, 220, 20),
                                                    (20, 220, 220), (220, 20, 220), (90, 90, 90), (250, 250, 250)]

    /// Eight distinct photos; returns their URLs.
    private func servePhotos(headers: [String] = []) -> [String] {
        colours.enumerated().map { i, c in
            server.serve("/p\(i).jpg", body: makeJPEG(width: 200 + i * 8, height: 150,
                                                     pattern: .solid(red: c.0, green: c.1, blue: c.2)),
                         headers: headers)
            return server.url("/p\(i).jpg")
        }
    }

    private func makeHost(box: UInt32 = 64, _ configure: @escaping (inout lazyimg_config) -> Void = { _ in }) throws -> CHost {
        let directory = directoryCString
        return try CHost { config in
            config.target_width = box
            config.target_height = box
            config.disk_cache_dir = UnsafePointer(directory)
            configure(&config)
        }
    }

    /// Requests every row, waits for all events, and returns each row's pixels.
    private func loadAll(_ host: CHost, _ urls: [String]) -> [[UInt8]] {
        XCTAssertEqual(host.setItems(urls), LAZYIMG_OK)
        let before = host.events.count
        for row in urls.indices { XCTAssertEqual(host.request(row).status, LAZYIMG_PENDING) }
        host.dispatch(until: before + urls.count)
        return urls.indices.map { row in
            var image: OpaquePointer?
            guard lazyimg_lookup(host.loader, row, &image) == LAZYIMG_OK, let pixels = lazyimg_image_pixels(image) else {
                return []
            }
            defer { lazyimg_image_release(image) }
            return Array(UnsafeBufferPointer(start: pixels, count: lazyimg_image_stride(image) * Int(lazyimg_image_height(image))))
        }
    }

    private func sources(_ host: CHost) -> [lazyimg_source] {
        host.events.sorted { $0.row < $1.row }.map(\.source)
    }

    func testASecondLoaderOnTheDirectoryShowsEveryImageWithoutTheNetwork() throws {
        let urls = servePhotos()
        let first = try makeHost()
        let downloaded = loadAll(first, urls)
        XCTAssertEqual(sources(first), Array(repeating: LAZYIMG_SOURCE_NETWORK, count: urls.count))
        XCTAssertEqual(first.destroy(), LAZYIMG_OK, "waits for the disk writes")
        XCTAssertEqual(server.totalHits, urls.count)

        let second = try makeHost()
        let fromDisk = loadAll(second, urls)
        XCTAssertEqual(server.totalHits, urls.count, "no HTTP request on the second run")
        XCTAssertEqual(sources(second), Array(repeating: LAZYIMG_SOURCE_DISK, count: urls.count))
        XCTAssertEqual(fromDisk, downloaded, "the same pixels")
        XCTAssertTrue(fromDisk.allSatisfy { !$0.isEmpty })
        let stats = second.stats()
        XCTAssertEqual(stats.disk_hits, UInt64(urls.count))
        XCTAssertEqual(stats.images_decoded, 0, "thumbnails: no decode on a warm start")
        XCTAssertEqual(stats.downloads_started, 0)
        XCTAssertEqual(second.destroy(), LAZYIMG_OK)

        // Another box: decoded from the originals on disk, still no request.
        let third = try makeHost(box: 32)
        _ = loadAll(third, urls)
        XCTAssertEqual(sources(third), Array(repeating: LAZYIMG_SOURCE_DISK, count: urls.count))
        XCTAssertEqual(third.stats().images_decoded, UInt64(urls.count))
        XCTAssertEqual(server.totalHits, urls.count)
    }

    func testEncodedOutputIsKeptOnDiskToo() throws {
        let urls = servePhotos()
        let first = try makeHost { $0.output = LAZYIMG_OUTPUT_ENCODED }
        XCTAssertEqual(first.setItems(urls), LAZYIMG_OK)
        for row in urls.indices { XCTAssertEqual(first.request(row).status, LAZYIMG_PENDING) }
        first.dispatch(until: urls.count)
        XCTAssertEqual(first.destroy(), LAZYIMG_OK, "waits for the disk writes")

        let second = try makeHost { $0.output = LAZYIMG_OUTPUT_ENCODED }
        XCTAssertEqual(second.setItems(urls), LAZYIMG_OK)
        for row in urls.indices { XCTAssertEqual(second.request(row).status, LAZYIMG_PENDING) }
        second.dispatch(until: urls.count)
        XCTAssertEqual(sources(second), Array(repeating: LAZYIMG_SOURCE_DISK, count: urls.count))
        XCTAssertEqual(server.totalHits, urls.count)
        var image: OpaquePointer?
        XCTAssertEqual(lazyimg_lookup(second.loader, 0, &image), LAZYIMG_OK)
        defer { lazyimg_image_release(image) }
        var size = 0
        let bytes = try XCTUnwrap(lazyimg_image_encoded_data(image, &size))
        XCTAssertEqual(Array(UnsafeBufferPointer(start: bytes, count: size)), makeJPEG(width: 200, height: 150,
                       pattern: .solid(red: colours[0].0, green: colours[0].1, blue: colours[0].2)), "the file as downloaded")
    }

    func testAStaleEntryIsRevalidatedAndA304RefreshesItWithoutADownload() throws {
        let body = makeJPEG(width: 120, height: 90, pattern: .solid(red: 10, green: 120, blue: 240))
        // max-age=0: stale as soon as it is stored.
        server.serveWithETag("/etag.jpg", body: body, etag: "\"v1\"", headers: ["Cache-Control: max-age=0"])
        let first = try makeHost()
        let original = loadAll(first, [server.url("/etag.jpg")])
        XCTAssertEqual(first.destroy(), LAZYIMG_OK)

        let second = try makeHost()
        let revalidated = loadAll(second, [server.url("/etag.jpg")])
        XCTAssertEqual(server.hits("/etag.jpg"), 2)
        XCTAssertEqual(server.requests("/etag.jpg").last?.header("If-None-Match"), "\"v1\"")
        XCTAssertNil(server.requests("/etag.jpg").first?.header("If-None-Match"))
        XCTAssertEqual(second.events.first?.source, LAZYIMG_SOURCE_DISK)
        XCTAssertEqual(second.events.first?.httpStatus, 304)
        XCTAssertEqual(revalidated, original)
        let stats = second.stats()
        XCTAssertEqual(stats.disk_revalidations, 1)
        XCTAssertEqual(stats.bytes_downloaded, 0, "a 304 has no body")
    }

    func testRevalidationAsksEvenWhereTheHostsOwnHeadersMayNotGo() throws {
        server.serveWithETag("/scoped.jpg", body: makeJPEG(width: 60, height: 40), etag: "\"s1\"",
                             headers: ["Cache-Control: max-age=0"])
        // The host's header may go to another origin only. The validators are the
        // cached response's own, so they go with the request all the same. (Both
        // loaders have the same header: the disk entry is filed under it.)
        let makeScopedHost = {
            try withCStrings(["X-Api-Key: 42", nil]) { headers in
                try withCStrings(["https://images.invalid", nil]) { origins in
                    try self.makeHost { $0.http_headers = headers; $0.http_headers_origins = origins }
                }
            }
        }
        let first = try makeScopedHost()
        let original = loadAll(first, [server.url("/scoped.jpg")])
        XCTAssertEqual(first.destroy(), LAZYIMG_OK)

        let second = try makeScopedHost()
        XCTAssertEqual(loadAll(second, [server.url("/scoped.jpg")]), original)
        let asked = try XCTUnwrap(server.requests("/scoped.jpg").last)
        XCTAssertEqual(asked.header("If-None-Match"), "\"s1\"")
        XCTAssertNil(asked.header("X-Api-Key"), "the host's header stays scoped")
        XCTAssertEqual(second.events.first?.httpStatus, 304)
        XCTAssertEqual(second.stats().disk_revalidations, 1)
    }

    func testAFreshEntryIsServedWithoutAskingTheServer() throws {
        server.serveWithETag("/fresh.jpg", body: makeJPEG(width: 80, height: 80), etag: "\"f\"",
                             headers: ["Cache-Control: public, max-age=3600"])
        let first = try makeHost()
        _ = loadAll(first, [server.url("/fresh.jpg")])
        XCTAssertEqual(first.destroy(), LAZYIMG_OK)
        let second = try makeHost()
        _ = loadAll(second, [server.url("/fresh.jpg")])
        XCTAssertEqual(server.hits("/fresh.jpg"), 1)
        XCTAssertEqual(second.events.first?.source, LAZYIMG_SOURCE_DISK)
    }

    func testANoStoreResponseIsNeverWritten() throws {
        server.serve("/private.jpg", body: makeJPEG(width: 80, height: 80), headers: ["Cache-Control: no-store"])
        let first = try makeHost()
        _ = loadAll(first, [server.url("/private.jpg")])
        XCTAssertEqual(first.destroy(), LAZYIMG_OK)
        XCTAssertFalse(directory.files().contains { $0.path.hasPrefix("cache/") && $0.path.split(separator: "/").count == 3 })
        let second = try makeHost()
        _ = loadAll(second, [server.url("/private.jpg")])
        XCTAssertEqual(second.events.first?.source, LAZYIMG_SOURCE_NETWORK)
        XCTAssertEqual(server.hits("/private.jpg"), 2)
    }

    func testWithTheNetworkDownAStaleEntryAnswersUnlessTurnedOff() throws {
        server.serveWithETag("/stale.jpg", body: makeJPEG(width: 80, height: 80), etag: "\"s\"",
                             headers: ["Cache-Control: no-cache"])
        let url = server.url("/stale.jpg")
        let first = try makeHost()
        _ = loadAll(first, [url])
        XCTAssertEqual(first.destroy(), LAZYIMG_OK)
        server.stop()

        let served = try makeHost()
        XCTAssertFalse(loadAll(served, [url])[0].isEmpty)
        XCTAssertEqual(served.events.first?.type, LAZYIMG_EVENT_IMAGE)
        XCTAssertEqual(served.events.first?.source, LAZYIMG_SOURCE_DISK)
        XCTAssertEqual(served.destroy(), LAZYIMG_OK)

        let strict = try makeHost { $0.disk_cache_serve_stale = 0 }
        _ = loadAll(strict, [url])
        XCTAssertEqual(strict.events.first?.type, LAZYIMG_EVENT_FAILED)
        XCTAssertEqual(strict.events.first?.status, LAZYIMG_E_NETWORK)
    }

    func testDamagedEntriesAreRemovedAndRefetched() throws {
        let urls = servePhotos()
        let first = try makeHost()
        let downloaded = loadAll(first, urls)
        XCTAssertEqual(first.destroy(), LAZYIMG_OK)
        // Flip one byte in the middle of every stored file.
        for file in directory.files() where file.path.split(separator: "/").count == 3 {
            let fd = open(directory.path + "/" + file.path, O_RDWR)
            var byte: UInt8 = 0
            XCTAssertEqual(pread(fd, &byte, 1, off_t(file.size / 2)), 1)
            byte ^= 0x40
            XCTAssertEqual(pwrite(fd, &byte, 1, off_t(file.size / 2)), 1)
            close(fd)
        }
        let second = try makeHost()
        XCTAssertEqual(loadAll(second, urls), downloaded, "refetched, not served damaged")
        XCTAssertEqual(sources(second), Array(repeating: LAZYIMG_SOURCE_NETWORK, count: urls.count))
        XCTAssertEqual(server.totalHits, 2 * urls.count)
    }

    /// Issue 17: a FIFO under an entry's name blocked a decode thread in open(); no
    /// event came and destroy hung.
    func testEntriesReplacedByFIFOsAreDownloadedAgainWithoutBlocking() throws {
        let urls = servePhotos()
        let first = try makeHost()
        let downloaded = loadAll(first, urls)
        XCTAssertEqual(first.destroy(), LAZYIMG_OK)
        let entries = directory.files().filter { $0.path.split(separator: "/").count == 3 }.map { directory.path + "/" + $0.path }
        XCTAssertEqual(entries.count, 2 * urls.count, "originals and thumbnails")
        for path in entries {
            XCTAssertEqual(unlink(path), 0)
            XCTAssertEqual(mkfifo(path, 0o600), 0)
        }
        // A reader blocked in open() on a FIFO is let go by opening it for writing
        // (which succeeds only while a reader has it open): done every 50 ms from 10 s
        // on, until destroy has returned, so that a block fails the test instead of
        // hanging it. (The cache removes the FIFOs it meets; what is opened then is
        // the entries written since, not counted.)
        let finished = Locked(false)
        let releases = Locked(0)
        let stopped = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let deadline = DispatchTime.now() + 10
            while !finished.withLock({ $0 }) {
                usleep(50_000)
                guard DispatchTime.now() >= deadline else { continue }
                for path in entries {
                    let fd = open(path, O_WRONLY | O_NONBLOCK)
                    guard fd >= 0 else { continue }
                    var info = stat()
                    if fstat(fd, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO { releases.withLock { $0 += 1 } }
                    close(fd)
                }
            }
            stopped.signal()
        }
        let second = try makeHost()
        XCTAssertEqual(loadAll(second, urls), downloaded)
        XCTAssertEqual(sources(second), Array(repeating: LAZYIMG_SOURCE_NETWORK, count: urls.count))
        XCTAssertEqual(second.destroy(), LAZYIMG_OK)
        finished.withLock { $0 = true }
        stopped.wait()
        XCTAssertEqual(releases.withLock { $0 }, 0, "a decode thread blocked in open() on a FIFO")
    }

    func testClearAndRemoveURLSendTheNextRequestToTheNetwork() throws {
        let urls = servePhotos()
        let first = try makeHost()
        _ = loadAll(first, urls)
        XCTAssertEqual(first.destroy(), LAZYIMG_OK)

        let second = try makeHost()
        XCTAssertEqual(lazyimg_disk_cache_remove_url(second.loader, urls[0]), LAZYIMG_OK)
        XCTAssertEqual(lazyimg_disk_cache_remove_url(second.loader, nil), LAZYIMG_E_INVALID_ARGUMENT)
        XCTAssertEqual(lazyimg_disk_cache_remove_url(nil, urls[0]), LAZYIMG_E_INVALID_ARGUMENT)
        _ = loadAll(second, urls)
        XCTAssertEqual(sources(second), [LAZYIMG_SOURCE_NETWORK] + Array(repeating: LAZYIMG_SOURCE_DISK, count: urls.count - 1))
        XCTAssertEqual(second.destroy(), LAZYIMG_OK)

        let third = try makeHost()
        XCTAssertEqual(lazyimg_disk_cache_clear(third.loader), LAZYIMG_OK)
        XCTAssertEqual(lazyimg_disk_cache_clear(nil), LAZYIMG_E_INVALID_ARGUMENT)
        XCTAssertEqual(third.stats().disk_cache_count, 0)
        _ = loadAll(third, urls)
        XCTAssertEqual(sources(third), Array(repeating: LAZYIMG_SOURCE_NETWORK, count: urls.count))
        XCTAssertEqual(server.totalHits, 2 * urls.count + 1)
    }

    func testTheDiskLimitHoldsAndEvicts() throws {
        let urls = servePhotos()
        // Room for a few entries beside the fixed part (directories, journal).
        let limit: UInt64 = 48_000
        let host = try makeHost { $0.disk_cache_bytes = limit }
        _ = loadAll(host, urls)
        XCTAssertEqual(host.destroy(), LAZYIMG_OK)
        let stored = directory.files().filter { $0.path.split(separator: "/").count == 3 }.reduce(0) { $0 + $1.size }
        XCTAssertLessThanOrEqual(stored, Int(limit))
        XCTAssertGreaterThan(stored, 0)
        let again = try makeHost { $0.disk_cache_bytes = limit }
        let stats = again.stats()
        XCTAssertEqual(stats.disk_cache_bytes <= limit, true)
    }

    func testAnImageOnDiskDoesNotWaitBehindABusyDownloadSlot() throws {
        server.serve("/on-disk.jpg", body: makeJPEG(width: 80, height: 80))
        server.serveGated("/held.jpg", body: makeJPEG(width: 80, height: 80))
        let first = try makeHost()
        _ = loadAll(first, [server.url("/on-disk.jpg")])
        XCTAssertEqual(first.destroy(), LAZYIMG_OK)

        let host = try makeHost { $0.max_concurrent_downloads = 1 }
        XCTAssertEqual(host.setItems([server.url("/held.jpg"), server.url("/on-disk.jpg")]), LAZYIMG_OK)
        XCTAssertEqual(host.request(0).status, LAZYIMG_PENDING)
        XCTAssertTrue(server.waitForHits("/held.jpg", count: 1, timeoutMilliseconds: 10_000), "the one slot is taken")
        XCTAssertEqual(host.request(1).status, LAZYIMG_PENDING)
        host.dispatch(until: 1)
        XCTAssertEqual(host.events.first?.row, 1)
        XCTAssertEqual(host.events.first?.source, LAZYIMG_SOURCE_DISK)
        server.release("/held.jpg")
        host.dispatch(until: 2)
    }

    /// A disk that fills up: a 2 MiB tmpfs under a cache whose limit is far larger.
    func testOnAFullDiskEveryImageIsDeliveredAndTheFailedWritesCounted() throws {
        let mountPoint = directory.path + "/cache"
        XCTAssertEqual(mkdir(mountPoint, 0o700), 0)
        guard mount("tmpfs", mountPoint, "tmpfs", 0, "size=2m,mode=0700") == 0 else {
            throw XCTSkip("mounting a tmpfs needs CAP_SYS_ADMIN (errno \(errno))")
        }
        defer { umount2(mountPoint, Int32(MNT_DETACH)) }
        let bodies = (0..<16).map { (i: Int) -> [UInt8] in
            let first: [UInt8] = [UInt8(i * 13), 0, 0, 255]
            let second: [UInt8] = [255, 255, UInt8(i * 7), 255]
            return makeJPEG(width: 480, height: 360, quality: 95,
                            pattern: .checkerboard(cell: 1 + i % 3, first: first, second: second))
        }
        XCTAssertGreaterThan(bodies.reduce(0) { $0 + $1.count }, 3 << 20, "more than the disk holds")
        let urls = bodies.enumerated().map { i, body in
            server.serve("/big\(i).jpg", body: body)
            return server.url("/big\(i).jpg")
        }
        let host = try makeHost { $0.disk_cache_bytes = 64 << 20 }
        let pixels = loadAll(host, urls)
        XCTAssertEqual(host.events.map(\.type), Array(repeating: LAZYIMG_EVENT_IMAGE, count: urls.count), "every image")
        XCTAssertTrue(pixels.allSatisfy { !$0.isEmpty })
        // The originals cannot all fit, so some write of this loader finds the disk
        // full. Writes follow the events they store: wait for one to fail. (Asked of
        // the next loader instead, this was a race: when every row's small thumbnail
        // had fitted, it downloaded and wrote nothing.)
        let clock = MonotonicClock()
        let deadline = clock.nowMilliseconds + 10_000
        while host.stats().disk_write_errors == 0 && clock.nowMilliseconds < deadline { usleep(1000) }
        XCTAssertGreaterThan(host.stats().disk_write_errors, 0, "writes that found the disk full are counted")
        XCTAssertEqual(host.destroy(), LAZYIMG_OK, "waits for the disk writes")
        let again = try makeHost { $0.disk_cache_bytes = 64 << 20 }
        XCTAssertEqual(loadAll(again, urls), pixels, "what is on disk is intact, the rest downloaded again")
        XCTAssertTrue(again.events.contains { $0.source == LAZYIMG_SOURCE_DISK }, "some entries fitted")
        XCTAssertEqual(again.events.map(\.type), Array(repeating: LAZYIMG_EVENT_IMAGE, count: urls.count))
    }

    func testAnUnusableDirectoryIsAnErrorFromCreate() throws {
        let file = try TemporaryFile(bytes: [1])
        defer { file.remove() }
        var config = lazyimg_config()
        lazyimg_config_init(&config)
        XCTAssertEqual(config.disk_cache_bytes, 256 << 20)
        XCTAssertEqual(config.disk_cache_serve_stale, 1)
        XCTAssertNil(config.disk_cache_dir)
        var loader: OpaquePointer?
        let status = file.path.withCString { path in
            config.disk_cache_dir = path
            return lazyimg_loader_create(&config, &loader)
        }
        XCTAssertEqual(status, LAZYIMG_E_IO)
        XCTAssertNil(loader)
    }
}
#endif
