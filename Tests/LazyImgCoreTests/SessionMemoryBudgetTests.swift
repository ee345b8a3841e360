#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_2 // ThreadSanitizer group 2 (see the Makefile's tsan)
import Dispatch
import XCTest
@testable import LazyImgCore
import TestSupport

/// One memory budget for the decoded images of all of a session's loaders (issue 8,
/// "Sharing"): policy on fakes. Every image here is a body of 100 bytes, decoded by
/// WidthFromBytesDecoder into 100 x 1 RGBA: 400 bytes.
final class SessionMemoryBudgetTests: XCTestCase {
    private static let imageBytes = 400

    /// A loader of the session (or of none), in host delivery, completing its
    /// downloads by hand.
    private final class SessionLoader: @unchecked Sendable {  // its fields are lets of Sendable types
        let log = EventLog()
        let loader: ImageLoader
        let name: String

        init(_ name: String, session: ImageSession?, transport: FakeTransport? = nil,
             memoryCacheBytes: Int = LoaderConfiguration().memoryCacheBytes) throws {
            self.name = name
            var config = LoaderConfiguration()
            config.session = session
            config.prefetchRows = 0
            config.decodeThreads = 1
            config.memoryCacheBytes = memoryCacheBytes
            let log = log
            loader = try ImageLoader(configuration: config, transport: transport,
                                     makeDecoder: { WidthFromBytesDecoder() }) { log.record($0) }
            try loader.setItems((0..<20).map { ImageURL("http://example.test/\(name)/\($0).png") })
        }

        func url(_ row: Int) -> String { "http://example.test/\(name)/\(row).png" }

        /// Whether `row`'s image is in this loader's cache, without marking it used.
        func holds(_ row: Int) -> Bool {
            let key = CacheKey(url: ImageURL(url(row)), options: loader.configuration.decodeOptions)
            return loader.front.withLock { $0.cache.peek(key) != nil }
        }

        var cachedBytes: Int { Int(loader.stats.memoryCacheBytes) }

        /// Requests `row`, completes its download through `transport` and waits for its
        /// image event (waiting on the event queue, never sleeping).
        func load(_ row: Int, via transport: FakeTransport, file: StaticString = #filePath, line: UInt = #line) throws {
            let before = log.all.count
            XCTAssertNotNil(try loader.request(row: row).ticket, file: file, line: line)
            loader.loop.waitForStep()
            XCTAssertTrue(transport.complete(url(row), with: .success([UInt8](repeating: 1, count: 100))),
                          "no transfer for \(url(row))", file: file, line: line)
            while log.all.count == before {
                guard try loader.waitForEvents(milliseconds: HangGuard.eventMilliseconds) else {
                    return XCTFail("timed out waiting for \(url(row))", file: file, line: line)
                }
                _ = loader.dispatch(max: 0)
            }
            XCTAssertNotNil(log.all.last?.image, file: file, line: line)
        }
    }

    private let transport = FakeTransport()

    private func makeSession(images: Int) throws -> ImageSession {
        try ImageSession(diskCacheDirectory: nil, diskCacheBytes: 0, maxConcurrentDownloads: 6,
                         memoryCacheBytes: images * Self.imageBytes, transport: transport)
    }

    func testTwoLoadersFillingStayWithinTheSharedBudget() throws {
        let session = try makeSession(images: 5)
        let budget = try XCTUnwrap(session.memoryBudget)
        let list = try SessionLoader("list", session: session)
        let detail = try SessionLoader("detail", session: session)
        defer { try? list.loader.shutdown(); try? detail.loader.shutdown() }
        for row in 0..<12 {
            for loader in [list, detail] {
                try loader.load(row, via: transport)
                // The inserting decode thread may not have trimmed yet: over by at most
                // its one image. Once a trim has returned with no insert running, within.
                XCTAssertLessThanOrEqual(budget.totalBytes, budget.limit + Self.imageBytes)
                budget.trim()
                XCTAssertLessThanOrEqual(list.cachedBytes + detail.cachedBytes, budget.limit)
                XCTAssertEqual(budget.totalBytes, list.cachedBytes + detail.cachedBytes)
            }
        }
        XCTAssertEqual(budget.totalBytes, budget.limit, "full, not over-evicted")
        // Each alone would keep all twelve (64 MiB each).
        XCTAssertGreaterThan(list.cachedBytes, 0)
        XCTAssertGreaterThan(detail.cachedBytes, 0)
    }

    func testTheLeastRecentlyUsedGoesFirstAcrossLoaders() throws {
        let session = try makeSession(images: 3)
        let budget = try XCTUnwrap(session.memoryBudget)
        let a = try SessionLoader("a", session: session)
        let b = try SessionLoader("b", session: session)
        defer { try? a.loader.shutdown(); try? b.loader.shutdown() }
        /// Loads and settles the budget, so the order of eviction is the test's.
        func load(_ loader: SessionLoader, _ row: Int) throws {
            try loader.load(row, via: transport)
            budget.trim()
        }
        try load(a, 0)
        try load(b, 0)
        try load(a, 1)
        XCTAssertEqual([a.holds(0), b.holds(0), a.holds(1)], [true, true, true], "three fit")
        XCTAssertNotNil(try a.loader.lookup(row: 0), "a0 used again: now the most recent")
        try load(b, 1)
        XCTAssertFalse(b.holds(0), "b0 was the least recently used")
        XCTAssertEqual([a.holds(0), a.holds(1), b.holds(1)], [true, true, true])
        try load(b, 2)
        XCTAssertFalse(a.holds(1), "then a1, in the other loader")
        XCTAssertEqual([a.holds(0), b.holds(1), b.holds(2)], [true, true, true])
        try load(a, 2)
        XCTAssertFalse(a.holds(0), "then a0, used before b1 was inserted")
        XCTAssertEqual([b.holds(1), b.holds(2), a.holds(2)], [true, true, true])
    }

    func testALoadersOwnLimitStillHoldsWithinTheSession() throws {
        let session = try makeSession(images: 10)
        let small = try SessionLoader("small", session: session, memoryCacheBytes: 2 * Self.imageBytes)
        defer { try? small.loader.shutdown() }
        for row in 0..<5 { try small.load(row, via: transport) }
        XCTAssertEqual(small.cachedBytes, 2 * Self.imageBytes)
        XCTAssertEqual(session.memoryBudget?.totalBytes, 2 * Self.imageBytes)
    }

    func testALoaderWithoutASessionIsUnaffected() throws {
        let session = try makeSession(images: 2)
        let shared = try SessionLoader("shared", session: session)
        let ownTransport = FakeTransport()
        let alone = try SessionLoader("alone", session: nil, transport: ownTransport)
        defer { try? shared.loader.shutdown(); try? alone.loader.shutdown() }
        for row in 0..<8 {
            try shared.load(row, via: transport)
            try alone.load(row, via: ownTransport)
            session.memoryBudget?.trim()
        }
        XCTAssertEqual(shared.cachedBytes, 2 * Self.imageBytes)
        XCTAssertEqual(alone.cachedBytes, 8 * Self.imageBytes, "its own 64 MiB only")
        XCTAssertEqual(session.memoryBudget?.totalBytes, 2 * Self.imageBytes, "the other loader is not counted")
    }

    func testALoaderThatShutsDownLeavesTheBudget() throws {
        let session = try makeSession(images: 4)
        let budget = try XCTUnwrap(session.memoryBudget)
        let leaving = try SessionLoader("leaving", session: session)
        let staying = try SessionLoader("staying", session: session)
        defer { try? staying.loader.shutdown() }
        for row in 0..<3 { try leaving.load(row, via: transport) }
        try staying.load(0, via: transport)
        XCTAssertEqual(budget.totalBytes, 4 * Self.imageBytes)
        try leaving.loader.shutdown()
        XCTAssertEqual(budget.totalBytes, Self.imageBytes)
        for row in 1..<4 { try staying.load(row, via: transport) }
        budget.trim()
        XCTAssertEqual(staying.cachedBytes, 4 * Self.imageBytes, "room freed by the loader that left")
    }

    func testAnImageLargerThanTheWholeBudgetIsNotKept() throws {
        let session = try ImageSession(diskCacheDirectory: nil, diskCacheBytes: 0, maxConcurrentDownloads: 6,
                                       memoryCacheBytes: Self.imageBytes - 1, transport: transport)
        let loader = try SessionLoader("big", session: session)
        defer { try? loader.loader.shutdown() }
        try loader.load(0, via: transport)
        XCTAssertEqual(loader.cachedBytes, 0)
        XCTAssertEqual(session.memoryBudget?.totalBytes, 0)
    }

    func testZeroMeansNoSharedLimit() throws {
        let session = try ImageSession(diskCacheDirectory: nil, diskCacheBytes: 0, maxConcurrentDownloads: 6,
                                       memoryCacheBytes: 0, transport: transport)
        XCTAssertNil(session.memoryBudget)
        let a = try SessionLoader("a", session: session)
        let b = try SessionLoader("b", session: session)
        defer { try? a.loader.shutdown(); try? b.loader.shutdown() }
        for row in 0..<4 {
            try a.load(row, via: transport)
            try b.load(row, via: transport)
        }
        XCTAssertEqual(a.cachedBytes + b.cachedBytes, 8 * Self.imageBytes)
    }

    /// Eviction across loaders under real threads: loaders inserting on their decode
    /// threads while the host hits, with no deadlock (the lock order is loader, then
    /// budget; a trim holds neither when it takes a loader's lock) and the bound kept.
    func testLoadersInsertingAtOnceKeepTheBound() throws {
        let session = try makeSession(images: 6)
        let budget = try XCTUnwrap(session.memoryBudget)
        let loaders = try (0..<3).map { try SessionLoader("l\($0)", session: session) }
        defer { loaders.forEach { try? $0.loader.shutdown() } }
        // Each completion lets the next row start, on the loader's scheduler thread.
        for loader in loaders { transport.waitsFor(loader.loader) }
        for loader in loaders {
            for row in 0..<20 { XCTAssertNotNil(try loader.loader.request(row: row).ticket) }
        }
        // Complete everything at once from three threads; each loader has one decode
        // thread, so at most three inserts run at a time.
        let transport = transport
        DispatchQueue.concurrentPerform(iterations: loaders.count) { i in
            for row in 0..<20 {
                transport.complete(loaders[i].url(row), with: .success([UInt8](repeating: 1, count: 100)))
                _ = try? loaders[i].loader.lookup(row: max(0, row - 1))
            }
        }
        for loader in loaders {
            while loader.log.all.count < 20 {
                guard try loader.loader.waitForEvents(milliseconds: HangGuard.eventMilliseconds) else { return XCTFail("timed out") }
                _ = loader.loader.dispatch(max: 0)
                XCTAssertLessThanOrEqual(budget.totalBytes, budget.limit + loaders.count * Self.imageBytes)
            }
        }
        budget.trim()
        XCTAssertLessThanOrEqual(budget.totalBytes, budget.limit)
        XCTAssertEqual(budget.totalBytes, loaders.map(\.cachedBytes).reduce(0, +))
    }
}
#endif
