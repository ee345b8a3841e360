#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_2 // ThreadSanitizer group 2 (see the Makefile's tsan)
import XCTest
@testable import LazyImgCore

/// A memory hit goes through the cache slot each row knows (`RowKeys`). Whatever
/// happens to the cache and the list, a row answers with its own URL's image or
/// misses, and with it whenever it is cached.
final class LoaderRowSlotTests: XCTestCase {
    private func url(_ name: String) -> String { "http://example.test/\(name).jpg" }

    /// Each URL "decodes" to an image as wide as the bytes it was sent.
    private func load(_ row: Int, _ name: String, width: Int, _ h: PolicyHarness) throws {
        let ticket = try XCTUnwrap(h.loader.request(row: row).ticket, "row \(row) was not cached yet")
        XCTAssertTrue(h.transport.complete(url(name), with: .success([UInt8](repeating: 1, count: width))))
        h.deliver(until: h.log.all.count + 1)
        XCTAssertEqual(h.log.events(for: ticket).first?.image?.width, width)
    }

    private func hitWidth(_ row: Int, _ h: PolicyHarness) throws -> Int? {
        try h.loader.request(row: row).image?.width
    }

    func testARowWhoseImageWasEvictedMissesAfterItsSlotIsReused() throws {
        // Room for two images of 4 x 10..15 bytes.
        let h = try PolicyHarness { $0.memoryCacheBytes = 4 * 25 }
        let names = (0..<6).map { "r\($0)" }
        try h.loader.setItems(names.map(url))
        try load(0, "r0", width: 10, h)
        XCTAssertEqual(try hitWidth(0, h), 10)
        XCTAssertEqual(try hitWidth(0, h), 10, "again")
        for row in 1..<6 { try load(row, "r\(row)", width: 10 + row, h) }

        // Three slots at most, so row 0's slot now holds another row's image.
        XCTAssertNil(try h.loader.request(row: 0).image, "row 0's image is gone: a miss")
        XCTAssertEqual(try hitWidth(5, h), 15)
        XCTAssertNil(try h.loader.lookup(row: 0))
    }

    func testReplacingTheListForgetsTheRowsSlots() throws {
        let h = try PolicyHarness()
        try h.loader.setItems([url("a"), url("b")])
        try load(0, "a", width: 10, h)
        try load(1, "b", width: 11, h)
        XCTAssertEqual(try [hitWidth(0, h), hitWidth(1, h)], [10, 11])

        try h.loader.setItems([url("c"), url("a"), nil])
        XCTAssertNil(try h.loader.request(row: 0).image, "row 0 is another URL now: a miss")
        XCTAssertEqual(try hitWidth(1, h), 10, "a's image, found by its key at its new row")
        XCTAssertThrowsError(try h.loader.request(row: 2)) { XCTAssertEqual($0 as? LoaderError, .noImage) }

        try h.loader.setItems([url("b"), url("a")])
        XCTAssertEqual(try [hitWidth(0, h), hitWidth(1, h)], [11, 10])
    }

    /// A new list is made outside the front lock and told of the cached images in
    /// it: by walking the cache when the list is longer, the rows when it is not.
    func testANewListKnowsEveryCachedImageWhicheverItWalks() throws {
        let h = try PolicyHarness()
        try h.loader.setItems([url("a"), url("b")])
        try load(0, "a", width: 10, h)
        try load(1, "b", width: 11, h)

        let long = (0..<50).map { $0 % 10 == 3 ? url("a") : $0 == 7 ? url("b") : url("n\($0)") }
        try h.loader.setItems(long)
        for row in long.indices where long[row] == url("a") {
            XCTAssertEqual(try hitWidth(row, h), 10, "row \(row): a's image, noted from the cache")
        }
        XCTAssertEqual(try hitWidth(7, h), 11)
        XCTAssertNil(try h.loader.request(row: 0).image, "a URL never cached misses")

        try h.loader.setItems([url("b")])
        XCTAssertEqual(try hitWidth(0, h), 11, "a list shorter than the cache is noted row by row")
    }

    func testAppendedRowsFindTheirImagesAndTheOldRowsKeepTheirs() throws {
        let h = try PolicyHarness()
        try h.loader.setItems([url("a")])
        try load(0, "a", width: 10, h)
        XCTAssertEqual(try hitWidth(0, h), 10)

        try h.loader.appendItems([url("b"), url("a"), nil])
        XCTAssertEqual(try hitWidth(0, h), 10)
        XCTAssertNil(try h.loader.request(row: 1).image, "b was never loaded")
        XCTAssertEqual(try hitWidth(2, h), 10, "the same URL on an appended row")
        XCTAssertThrowsError(try h.loader.request(row: 3)) { XCTAssertEqual($0 as? LoaderError, .noImage) }
        XCTAssertThrowsError(try h.loader.request(row: 4)) { XCTAssertEqual($0 as? LoaderError, .outOfRange) }
    }

    func testTheUnfailingPathAnswersAsARequestAndLeavesErrorsToIt() throws {
        let h = try PolicyHarness()
        try h.loader.setItems([url("a"), url("b"), nil])
        try load(0, "a", width: 10, h)
        let before = h.stats
        var ticket: UInt64 = 0
        var deferred = false
        var placeholder = false
        XCTAssertEqual(h.loader.requestUnlessFailing(row: 0, ticket: &ticket, deferred: &deferred, placeholder: &placeholder)?.width, 10, "through the row's slot")
        XCTAssertEqual(h.loader.requestUnlessFailing(row: 0, ticket: &ticket, deferred: &deferred, placeholder: &placeholder)?.width, 10,
                       "again")
        XCTAssertEqual(ticket, 0, "a hit has no ticket")
        XCTAssertEqual(h.stats.requests, before.requests + 2)
        XCTAssertEqual(h.stats.memoryHits, before.memoryHits + 2)
        for row in [2, 3, -1] {
            XCTAssertNil(h.loader.requestUnlessFailing(row: row, ticket: &ticket, deferred: &deferred, placeholder: &placeholder))
            XCTAssertEqual(ticket, 0, "row \(row): an error, left to request(row:)")
        }
        XCTAssertEqual(h.stats.requests, before.requests + 2, "nothing counted for the errors")
        XCTAssertTrue(h.transport.startedURLs.filter { $0 == url("b") }.isEmpty)
        XCTAssertNil(h.loader.requestUnlessFailing(row: 1, ticket: &ticket, deferred: &deferred, placeholder: &placeholder))
        XCTAssertNotEqual(ticket, 0, "a miss gets its ticket in the same call")
        XCTAssertFalse(placeholder, "no row has had a placeholder")
        XCTAssertFalse(deferred, "at rest")
        XCTAssertEqual(h.stats.requests, before.requests + 3)
        h.settle()
        XCTAssertEqual(h.transport.startedURLs.filter { $0 == url("b") }.count, 1, "and its download, as request(row:)'s")
        try h.loader.shutdown()
        ticket = 0
        XCTAssertNil(h.loader.requestUnlessFailing(row: 0, ticket: &ticket, deferred: &deferred, placeholder: &placeholder))
        XCTAssertEqual(ticket, 0)
    }

    /// An image cached for one row is noted on every row with its URL: a row never
    /// asked for answers from memory, also after the image left and came back in
    /// another slot.
    func testEveryRowWithTheURLOfACachedImageHitsItsSlot() throws {
        // Room for one image of 4 x 10..12 bytes.
        let h = try PolicyHarness { $0.memoryCacheBytes = 4 * 12 }
        try h.loader.setItems([url("a"), url("b"), url("a"), url("c")])
        try h.loader.appendItems([url("a")])
        try load(0, "a", width: 10, h)
        XCTAssertEqual(try [hitWidth(2, h), hitWidth(4, h)], [10, 10], "rows 2 and 4 were never asked for")
        XCTAssertNil(try h.loader.lookup(row: 3), "another URL")

        try load(1, "b", width: 11, h)
        XCTAssertNil(try h.loader.lookup(row: 2), "a's image was evicted for b's")
        try load(3, "c", width: 12, h)
        try load(4, "a", width: 10, h)
        XCTAssertEqual(try [hitWidth(0, h), hitWidth(2, h)], [10, 10], "a again, in a slot b or c had")
        XCTAssertNil(try h.loader.lookup(row: 1))
    }

    func testTrimmingTheCacheMakesRememberedRowsMiss() throws {
        let h = try PolicyHarness()
        try h.loader.setItems([url("a")])
        try load(0, "a", width: 10, h)
        XCTAssertEqual(try hitWidth(0, h), 10)
        h.loader.trimMemory(.complete)
        XCTAssertNil(try h.loader.request(row: 0).image)
    }
}
#endif
