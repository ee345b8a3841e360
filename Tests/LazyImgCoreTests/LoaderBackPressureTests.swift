#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_1 // ThreadSanitizer group 1 (see the Makefile's tsan)
import Dispatch
import XCTest
@testable import LazyImgCore

/// Back-pressure between downloads and decoding (issue 7, item 5): downloaded bytes
/// waiting to decode stay under `decodeQueueBytes`, and decodes for rows that left the
/// screen while they waited are skipped.
final class LoaderBackPressureTests: XCTestCase {
    /// `WidthFromBytesDecoder` behind a gate the test opens: decodes pile up until then.
    /// Records the size of every file it was asked to decode.
    final class GatedDecoder: ImageDecoding, @unchecked Sendable {
        private let gate = DispatchSemaphore(value: 0)
        private let entered = DispatchSemaphore(value: 0)
        private let calls = Locked<[Int]>([])

        func decode(_ data: [UInt8], options: DecodeOptions, limits: DecodeLimits) throws(LoaderError) -> DecodedImage {
            calls.withLock { $0.append(data.count) }
            entered.signal()
            gate.wait()
            gate.signal()  // once open, stays open
            return try WidthFromBytesDecoder().decode(data, options: options, limits: limits)
        }

        func open() { gate.signal() }
        var decodedSizes: [Int] { calls.withLock { $0 } }

        /// Waits (up to 10 s) until a decode thread is inside `decode`.
        func waitUntilDecoding(file: StaticString = #filePath, line: UInt = #line) {
            XCTAssertEqual(entered.wait(timeout: .now() + 10), .success, "no decode started", file: file, line: line)
        }
    }

    private func url(_ row: Int) -> String { "http://example.test/\(row).jpg" }

    func testNoDownloadStartsWhileTheBytesWaitingToDecodeExceedTheBudget() throws {
        let decoder = GatedDecoder()
        let h = try PolicyHarness(maxConcurrent: 2, decodeQueueBytes: 100, makeDecoder: { decoder })
        try h.loader.setItems(PolicyHarness.urls(8))
        try h.loader.setVisibleRange(first: 0, count: 6)
        for row in 0..<6 { _ = try h.loader.request(row: row) }
        XCTAssertEqual(h.transport.startedURLs, [url(0), url(1)])

        // 80 bytes waiting, under the budget: the freed slot is used.
        h.transport.complete(url(0), with: .success([UInt8](repeating: 1, count: 80)))
        decoder.waitUntilDecoding()
        XCTAssertEqual(h.transport.startedURLs, [url(0), url(1), url(2)])
        // 160 bytes, over it: neither freed slot is used, even with no download running.
        h.transport.complete(url(1), with: .success([UInt8](repeating: 1, count: 80)))
        h.transport.complete(url(2), with: .success([UInt8](repeating: 1, count: 80)))
        XCTAssertEqual(h.transport.startedURLs.count, 3)
        XCTAssertEqual(h.stats.inFlight, 0)

        // As decodes finish the queue drains under the budget and downloads resume.
        decoder.open()
        h.deliver(until: 3)
        XCTAssertEqual(h.transport.startedURLs, (0..<5).map(url))
        XCTAssertEqual(h.log.all.compactMap { $0.image?.width }, [80, 80, 80])
    }

    func testOneDownloadStillStartsWhenASingleFileIsLargerThanTheBudget() throws {
        let h = try PolicyHarness(maxConcurrent: 1, decodeQueueBytes: 10)
        try h.loader.setItems(PolicyHarness.urls(3))
        try h.loader.setVisibleRange(first: 0, count: 3)
        for row in 0..<3 { _ = try h.loader.request(row: row) }
        for row in 0..<3 {
            XCTAssertEqual(h.transport.startedURLs.count, row + 1)
            h.transport.complete(url(row), with: .success([UInt8](repeating: 1, count: 50)))
            h.deliver(until: row + 1)
        }
        XCTAssertEqual(h.stats.imagesDecoded, 3)
    }

    func testQueuedDecodesForRowsThatLeftAreSkipped() throws {
        let decoder = GatedDecoder()
        let h = try PolicyHarness(maxConcurrent: 4, makeDecoder: { decoder })
        try h.loader.setItems(PolicyHarness.urls(20))
        try h.loader.setVisibleRange(first: 0, count: 4)
        let tickets = try (0..<3).map { try XCTUnwrap(h.loader.request(row: $0).ticket) }
        // Row 0 decodes (held at the gate); rows 1 and 2 wait in the queue.
        h.transport.complete(url(0), with: .success([UInt8](repeating: 1, count: 10)))
        decoder.waitUntilDecoding()
        h.transport.complete(url(1), with: .success([UInt8](repeating: 1, count: 11)))
        h.transport.complete(url(2), with: .success([UInt8](repeating: 1, count: 12)))

        // The rows scroll away: their tickets end cancelled.
        try h.loader.setVisibleRange(first: 10, count: 4)
        h.deliver(until: 3)
        XCTAssertEqual(tickets.compactMap { h.log.events(for: $0).first?.error }, [.cancelled, .cancelled, .cancelled])
        // Row 13 decodes after rows 1 and 2 leave the queue (its rank is lower), so once
        // its event is here the skipped ones have been dequeued.
        let late = try XCTUnwrap(h.loader.request(row: 13).ticket)
        h.transport.complete(url(13), with: .success([UInt8](repeating: 1, count: 13)))
        decoder.open()
        h.deliver(until: 4)
        XCTAssertEqual(h.log.events(for: late).first?.image?.width, 13)
        XCTAssertEqual(decoder.decodedSizes, [10, 13], "the running decode finished; the queued ones were skipped")
        XCTAssertEqual(h.stats.decodesSkipped, 2)
        XCTAssertNotNil(try h.loader.lookup(url: url(0)), "a decode already running still fills the cache")
        XCTAssertNil(try h.loader.lookup(url: url(1)))
    }
}
#endif
