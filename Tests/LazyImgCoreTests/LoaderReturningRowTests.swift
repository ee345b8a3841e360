#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_1 // ThreadSanitizer group 1 (see the Makefile's tsan)
import XCTest
@testable import LazyImgCore

/// One download per URL when a row leaves the window while its download finishes or
/// its image decodes, and comes back: the work in hand answers it instead of a
/// second download. (The terminal list's scripted scroll found this: as a fling
/// slows, the prefetch window shrinks for a moment between the velocity and the
/// visible range of one frame, and rows at its edge left and came back.)
final class LoaderReturningRowTests: XCTestCase {
    private func url(_ row: Int) -> String { "http://example.test/\(row).jpg" }

    private func starts(of row: Int, _ h: PolicyHarness) -> Int {
        h.transport.startedURLs.filter { $0 == url(row) }.count
    }

    func testARowBackWhileItsImageDecodesIsNotDownloadedAgain() throws {
        let decoder = LoaderBackPressureTests.GatedDecoder()
        let h = try PolicyHarness(maxConcurrent: 4, makeDecoder: { decoder })
        try h.loader.setItems(PolicyHarness.urls(20))
        try h.loader.setVisibleRange(first: 0, count: 2)
        // Row 0 decodes (held at the gate); row 1's decode waits in the queue.
        XCTAssertTrue(h.transport.complete(url(0), with: .success([UInt8](repeating: 1, count: 10))))
        decoder.waitUntilDecoding()
        XCTAssertTrue(h.transport.complete(url(1), with: .success([UInt8](repeating: 1, count: 11))))

        // Both rows leave and come back before their images are made.
        try h.loader.setVisibleRange(first: 10, count: 2)
        try h.loader.setVisibleRange(first: 0, count: 2)
        XCTAssertEqual([starts(of: 0, h), starts(of: 1, h)], [1, 1], "no second download")

        let tickets = try (0..<2).map { try XCTUnwrap(h.loader.request(row: $0).ticket) }
        decoder.open()
        h.deliver(until: 2)
        XCTAssertEqual(tickets.map { h.log.events(for: $0).first?.image?.width }, [10, 11])
        XCTAssertEqual(decoder.decodedSizes, [10, 11], "the queued decode ran: its row came back")
        XCTAssertEqual([starts(of: 0, h), starts(of: 1, h)], [1, 1])
    }

    func testADownloadNearlyDoneWhenItsRowLeftIsDecodedIntoTheCache() throws {
        let decoder = LoaderBackPressureTests.GatedDecoder()
        let h = try PolicyHarness(maxConcurrent: 4, makeDecoder: { decoder })
        try h.loader.setItems(PolicyHarness.urls(100))
        try h.loader.setVisibleRange(first: 0, count: 2)
        XCTAssertTrue(h.transport.liveURLs.contains(url(0)))
        h.transport.setProgress(url(0), received: 80_000, expected: 100_000)
        try h.loader.setVisibleRange(first: 50, count: 2)
        XCTAssertTrue(h.transport.liveURLs.contains(url(0)), "nearly done: it goes on")

        XCTAssertTrue(h.transport.complete(url(0), with: .success([UInt8](repeating: 1, count: 7))))
        decoder.waitUntilDecoding()  // decoded although no row wants it now
        decoder.open()

        try h.loader.setVisibleRange(first: 0, count: 2)
        let answer = try h.loader.request(row: 0)
        if let ticket = answer.ticket {  // its decode may still be finishing
            h.deliver(until: 1)
            XCTAssertEqual(h.log.events(for: ticket).first?.image?.width, 7)
        } else {
            XCTAssertEqual(answer.image?.width, 7)
        }
        XCTAssertEqual(starts(of: 0, h), 1, "one download for the URL")
    }
}
#endif
