#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_4 // ThreadSanitizer group 4 (see the Makefile's tsan)
@testable import LazyImgCore
import XCTest

/// The scheduler never hands the transport more downloads for one host than
/// max_host_connections: the rest wait without a slot, and start as their host
/// frees one (on the fake transport; SlowServerTests has the loopback case).
final class HostSlotsTests: XCTestCase {
    private func harness() throws -> PolicyHarness {
        try PolicyHarness(maxConcurrent: 4, configure: { $0.maxHostConnections = 2 })
    }

    private func urls(_ host: String, _ count: Int) -> [String] {
        (0..<count).map { "http://\(host)/\($0).jpg" }
    }

    func testAHostAtItsCapLeavesTheOtherSlotsToOtherHosts() throws {
        let h = try harness()
        let slow = urls("slow.test", 4), other = urls("other.test", 2)
        try h.loader.setItems(slow + other)
        try h.loader.setVisibleRange(first: 0, count: 6)
        for row in 0..<6 { _ = try h.loader.request(row: row) }
        XCTAssertEqual(h.transport.liveURLs, Set(slow.prefix(2) + other))

        XCTAssertTrue(h.transport.complete(slow[0], with: .success([1, 2])))
        XCTAssertEqual(h.transport.liveURLs, Set([slow[1], slow[2]] + other), "a held row starts as its host frees a slot")
        XCTAssertTrue(h.transport.complete(other[0], with: .success([1, 2])))
        XCTAssertEqual(h.transport.liveURLs, Set([slow[1], slow[2], other[1]]), "a free slot, but not for slow.test")
        XCTAssertTrue(h.transport.complete(slow[1], with: .success([1, 2])))
        XCTAssertEqual(h.transport.liveURLs, Set([slow[2], slow[3], other[1]]))
    }

    func testAHeldRowThatLeavesTheWindowNeverStarts() throws {
        let h = try harness()
        let slow = urls("slow.test", 3)
        try h.loader.setItems(slow + urls("filler.test", 20))
        try h.loader.setVisibleRange(first: 0, count: 3)
        for row in 0..<3 { _ = try h.loader.request(row: row) }
        XCTAssertEqual(h.transport.liveURLs, Set(slow.prefix(2)))
        try h.loader.setVisibleRange(first: 1, count: 1)
        XCTAssertEqual(h.transport.liveURLs, [slow[1]])
        XCTAssertTrue(h.transport.complete(slow[1], with: .success([1])))
        XCTAssertFalse(h.transport.startedURLs.contains(slow[2]))
    }

    func testFetchesCountAgainstTheirHost() throws {
        let h = try harness()
        let slow = urls("slow.test", 3)
        try h.loader.setItems(slow)
        _ = try h.loader.fetch(url: ImageURL("http://slow.test/feed?page=2"))
        try h.loader.setVisibleRange(first: 0, count: 3)
        for row in 0..<3 { _ = try h.loader.request(row: row) }
        XCTAssertEqual(h.transport.liveURLs, ["http://slow.test/feed?page=2", slow[0]])
    }
}
#endif
