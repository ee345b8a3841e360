#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_1 // ThreadSanitizer group 1 (see the Makefile's tsan)
import CLazyImgHeader
import Glibc
import TestSupport
import XCTest

/// The memory budget of a session (its config's memory_cache_bytes) bounds the
/// decoded images of all its loaders together: real libcurl against the loopback
/// server, real JPEG decodes. (An extension, not a class: see
/// DiskCacheTests+HTTPPolicy.swift on ThreadSanitizer's test listing.)
extension DiskCacheEndToEndTests {
    /// 64 x 48 RGBA: what a 200 x 150 photo becomes in the 64-pixel box.
    private static let thumbnailBytes: UInt64 = 64 * 48 * 4

    /// Four photos per loader, of one size, each its own URL.
    private func servePhotos(for name: String) -> [String] {
        (0..<4).map { i in
            let shade = UInt8(40 + i * 50)
            server.serve("/\(name)\(i).jpg", body: makeJPEG(width: 200, height: 150,
                                                           pattern: .solid(red: shade, green: 90, blue: 200)))
            return server.url("/\(name)\(i).jpg")
        }
    }

    /// A session whose memory budget is `budget` (nil: lazyimg_session_create(NULL)).
    private func makeMemorySession(budget: UInt64?) throws -> OpaquePointer {
        var session: OpaquePointer?
        if let budget {
            var config = lazyimg_config()
            lazyimg_config_init(&config)
            config.memory_cache_bytes = budget
            XCTAssertEqual(lazyimg_session_create(&config, &session), LAZYIMG_OK)
        } else {
            XCTAssertEqual(lazyimg_session_create(nil, &session), LAZYIMG_OK)
        }
        return try XCTUnwrap(session)
    }

    /// Two loaders of the session each load their four photos, one after another.
    private func loadEightPhotos(_ session: OpaquePointer) throws -> (CHost, CHost) {
        let hosts = try ["list", "detail"].map { name in
            let host = try CHost { config in
                config.session = session
                config.target_width = 64
                config.target_height = 64
                config.prefetch_rows = 0
            }
            XCTAssertEqual(host.setItems(servePhotos(for: name)), LAZYIMG_OK)
            for row in 0..<4 {
                XCTAssertEqual(host.request(row).status, LAZYIMG_PENDING)
                host.dispatch(until: row + 1)
                XCTAssertEqual(host.events.last?.type, LAZYIMG_EVENT_IMAGE)
            }
            return host
        }
        return (hosts[0], hosts[1])
    }

    private func isInMemory(_ host: CHost, _ row: Int) -> Bool {
        var image: OpaquePointer?
        defer { lazyimg_image_release(image) }
        return lazyimg_lookup(host.loader, row, &image) == LAZYIMG_OK
    }

    func testASessionsMemoryBudgetBoundsItsLoadersTogether() throws {
        let budget = 2 * Self.thumbnailBytes
        let session = try makeMemorySession(budget: budget)
        defer { lazyimg_session_destroy(session) }
        let (list, detail) = try loadEightPhotos(session)
        let together = list.stats().memory_cache_bytes + detail.stats().memory_cache_bytes
        // The documented slack: the last inserts' decode threads may not have evicted
        // yet, one image each (two decode threads per loader on this machine at most
        // four; eight images would be there without the budget).
        let decodeThreads = UInt64(max(1, min(4, sysconf(Int32(_SC_NPROCESSORS_ONLN)))))
        XCTAssertLessThanOrEqual(together, budget + 2 * decodeThreads * Self.thumbnailBytes)
        XCTAssertLessThan(together, 8 * Self.thumbnailBytes)
        XCTAssertFalse(isInMemory(list, 0), "the oldest image, in the other loader, went first")
        XCTAssertTrue(isInMemory(detail, 3), "the newest stays")
    }

    func testTheDefaultSessionBudgetKeepsASmallListWhole() throws {
        let session = try makeMemorySession(budget: nil)
        defer { lazyimg_session_destroy(session) }
        let (list, detail) = try loadEightPhotos(session)
        XCTAssertEqual(list.stats().memory_cache_bytes + detail.stats().memory_cache_bytes, 8 * Self.thumbnailBytes)
        XCTAssertTrue((0..<4).allSatisfy { isInMemory(list, $0) && isInMemory(detail, $0) })
    }
}
#endif
