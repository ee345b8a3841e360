#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_1 // ThreadSanitizer group 1 (see the Makefile's tsan)
import XCTest
@testable import LazyImgCore

/// The scheduling policy on a fake transport and decoder: coalescing, deferral while
/// scrolling, visible-first ordering, prefetch direction, cancellation, retry backoff.
final class LoaderPolicyTests: XCTestCase {
    func testOneDownloadServesEveryTicketForTheSameURL() throws {
        let h = try PolicyHarness()
        try h.loader.setItems(PolicyHarness.urls(3, distinct: false))
        let tickets = try (0..<3).map { try XCTUnwrap(h.loader.request(row: $0).ticket) }
        XCTAssertEqual(Set(tickets).count, 3)
        XCTAssertEqual(h.transport.startedURLs, ["http://example.test/0.jpg"])
        XCTAssertEqual(h.stats.downloadsCoalesced, 2)

        h.transport.complete("http://example.test/0.jpg", with: .success([1, 2, 3]))
        h.deliver(until: 3)
        for (row, ticket) in tickets.enumerated() {
            let events = h.log.events(for: ticket)
            XCTAssertEqual(events.count, 1)
            XCTAssertEqual(events.first?.row, row)
            XCTAssertEqual(events.first?.image?.width, 3)
        }
        XCTAssertEqual(try h.loader.request(row: 1).image?.width, 3, "now a memory hit")
        XCTAssertEqual(h.stats.memoryHits, 1)
        XCTAssertEqual(h.stats.downloadsStarted, 1)
    }

    func testNoDownloadStartsWhileScrollingAndVisibleRowsStartFirstAtIdle() throws {
        let h = try PolicyHarness(maxConcurrent: 1)
        try h.loader.setItems(PolicyHarness.urls(100))
        try h.loader.setScrollState(.dragging, velocity: 30)
        try h.loader.setVisibleRange(first: 40, count: 5)
        var tickets: [Int: UInt64] = [:]
        for row in [44, 43, 42, 41, 40] {
            let result = try h.loader.request(row: row)
            XCTAssertTrue(result.isDeferred, "row \(row) while dragging")
            tickets[row] = result.ticket
        }
        try h.loader.setScrollState(.decelerating, velocity: 10)
        XCTAssertEqual(h.transport.startedURLs, [], "no download while the list moves")
        XCTAssertEqual(h.stats.deferred, 5)

        try h.loader.setScrollState(.idle, velocity: 0)
        XCTAssertEqual(h.transport.startedURLs, ["http://example.test/40.jpg"], "top visible row first")
        for row in 40..<45 {
            XCTAssertTrue(h.transport.complete("http://example.test/\(row).jpg", with: .success([1])))
        }
        XCTAssertEqual(h.transport.startedURLs, (40..<45).map { "http://example.test/\($0).jpg" })
        h.deliver(until: 5)
        XCTAssertEqual(Set(h.log.all.map(\.ticket)), Set(tickets.values))
    }

    func testMemoryHitsAreServedWhileScrolling() throws {
        let h = try PolicyHarness()
        try h.loader.setItems(PolicyHarness.urls(2))
        _ = try h.loader.request(row: 0)
        h.transport.complete("http://example.test/0.jpg", with: .success([9, 9]))
        h.deliver(until: 1)
        try h.loader.setScrollState(.dragging, velocity: 50)
        XCTAssertEqual(try h.loader.request(row: 0).image?.width, 2)
        XCTAssertTrue(try h.loader.request(row: 1).isDeferred)
    }

    func testPrefetchFollowsTheDirectionOfTravelAfterTheVisibleRows() throws {
        let h = try PolicyHarness(maxConcurrent: 1, prefetchRows: 3)
        try h.loader.setItems(PolicyHarness.urls(100))
        // A slow drag toward row 0 (a fling would leave nothing to prefetch at rest).
        try h.loader.setScrollState(.dragging, velocity: -0.5)
        try h.loader.setVisibleRange(first: 50, count: 2)
        try h.loader.setScrollState(.idle, velocity: 0)
        var order: [String] = []
        while let next = h.transport.liveURLs.first {
            order.append(next)
            h.transport.complete(next, with: .success([1]))
        }
        XCTAssertEqual(order, [50, 51, 49, 48, 47].map { "http://example.test/\($0).jpg" })
    }

    func testWorkForRowsThatLeftIsCancelledInFlightIncluded() throws {
        let h = try PolicyHarness()
        try h.loader.setItems(PolicyHarness.urls(200))
        try h.loader.setVisibleRange(first: 0, count: 4)
        let ticket = try XCTUnwrap(h.loader.request(row: 2).ticket)
        XCTAssertTrue(h.transport.liveURLs.contains("http://example.test/2.jpg"))

        try h.loader.setVisibleRange(first: 100, count: 4)
        h.deliver(until: 1)
        XCTAssertEqual(h.log.events(for: ticket).first?.error, .cancelled)
        XCTAssertFalse(h.transport.liveURLs.contains("http://example.test/2.jpg"))
        XCTAssertEqual(h.stats.downloadsCancelled, 4, "rows 0-3 were loading")
        XCTAssertEqual(h.transport.liveURLs, Set((100..<104).map { "http://example.test/\($0).jpg" }))
        // A late completion of the cancelled transfer is ignored.
        XCTAssertFalse(h.transport.complete("http://example.test/2.jpg", with: .success([1])))
    }

    func testCancelEndsOneTicketAndKeepsTheSharedDownloadForOthers() throws {
        let h = try PolicyHarness()
        try h.loader.setItems(PolicyHarness.urls(2, distinct: false))
        let first = try XCTUnwrap(h.loader.request(row: 0).ticket)
        let second = try XCTUnwrap(h.loader.request(row: 1).ticket)
        XCTAssertTrue(try h.loader.cancel(ticket: first))
        XCTAssertFalse(try h.loader.cancel(ticket: first), "a finished ticket is unknown")
        XCTAssertFalse(try h.loader.cancel(ticket: 999_999))
        XCTAssertEqual(h.transport.cancelledCount, 0)
        h.transport.complete("http://example.test/0.jpg", with: .success([1]))
        h.deliver(until: 2)
        XCTAssertEqual(h.log.events(for: first).map(\.error), [.cancelled])
        XCTAssertEqual(h.log.events(for: first).first?.url, ImageURL("http://example.test/0.jpg"))
        XCTAssertNotNil(h.log.events(for: second).first?.image)
    }

    func testCancellingTheLastTicketStopsTheDownload() throws {
        let h = try PolicyHarness()
        try h.loader.setItems(PolicyHarness.urls(1))
        let ticket = try XCTUnwrap(h.loader.request(row: 0).ticket)
        // Started first: a cancel in the scheduler's same step would start nothing.
        XCTAssertEqual(h.transport.liveURLs, ["http://example.test/0.jpg"])
        XCTAssertTrue(try h.loader.cancel(ticket: ticket))
        XCTAssertEqual(h.transport.cancelledCount, 1)
        XCTAssertEqual(h.stats.downloadsCancelled, 1)
        XCTAssertEqual(h.stats.inFlight, 0)
    }

    func testAFailureAnswersAtOnceThenExpiresAndRetries() throws {
        let h = try PolicyHarness()
        try h.loader.setItems(PolicyHarness.urls(2, distinct: false))
        let ticket = try XCTUnwrap(h.loader.request(row: 0).ticket)
        h.transport.complete("http://example.test/0.jpg", with: .failure(.http(status: 404)), httpStatus: 404)
        h.deliver(until: 1)
        XCTAssertEqual(h.log.events(for: ticket).first?.error, .http(status: 404))
        XCTAssertEqual(h.log.events(for: ticket).first?.httpStatus, 404)
        XCTAssertThrowsError(try h.loader.request(row: 1)) { XCTAssertEqual($0 as? LoaderError, .http(status: 404)) }
        XCTAssertEqual(h.transport.startedURLs.count, 1)

        h.clock.advance(by: 2_000)
        XCTAssertTrue(try h.loader.request(row: 1).isPending, "the record expired: try again")
        XCTAssertEqual(h.transport.startedURLs.count, 2)
        XCTAssertEqual(h.stats.downloadsFailed, 1)
    }

    func testADecodeFailureEndsEveryTicketOfTheJob() throws {
        let h = try PolicyHarness()
        try h.loader.setItems(PolicyHarness.urls(2, distinct: false))
        _ = try h.loader.request(row: 0)
        _ = try h.loader.request(row: 1)
        h.transport.complete("http://example.test/0.jpg", with: .success([]))  // WidthFromBytesDecoder: corrupt
        h.deliver(until: 2)
        XCTAssertEqual(h.log.all.map(\.error), [.decode, .decode])
    }

    func testSetItemsCancelsTheOldListsTickets() throws {
        let h = try PolicyHarness()
        try h.loader.setItems(PolicyHarness.urls(3))
        let ticket = try XCTUnwrap(h.loader.request(row: 1).ticket)
        try h.loader.setItems(["http://example.test/new.jpg"])
        h.deliver(until: 1)
        XCTAssertEqual(h.log.events(for: ticket).map(\.error), [.cancelled])
        // The old list's row and URL, not the new list's.
        XCTAssertEqual(h.log.events(for: ticket).first?.row, 1)
        XCTAssertEqual(h.log.events(for: ticket).first?.url, ImageURL("http://example.test/1.jpg"))
        XCTAssertEqual(h.loader.itemCount, 1)
        try h.loader.appendItems([nil, "http://example.test/more.jpg"])
        XCTAssertEqual(h.loader.itemCount, 3)
    }

    func testACancelledFetchNamesItsURLAndANewListKeepsIt() throws {
        let h = try PolicyHarness()
        try h.loader.setItems(PolicyHarness.urls(3))
        let kept = try h.loader.fetch(url: ImageURL("http://example.test/feed?page=2"))
        let cancelled = try h.loader.fetch(url: ImageURL("http://example.test/feed?page=3"))
        try h.loader.setItems(PolicyHarness.urls(1))
        XCTAssertTrue(try h.loader.cancel(ticket: cancelled))
        h.deliver(until: 1)
        XCTAssertEqual(h.log.events(for: cancelled).first?.url, ImageURL("http://example.test/feed?page=3"))
        try h.loader.shutdown()
        XCTAssertEqual(h.log.events(for: kept).map(\.error), [.cancelled])
        XCTAssertEqual(h.log.events(for: kept).first?.url, ImageURL("http://example.test/feed?page=2"))
    }

    func testRequestErrorsComeAtOnceWithoutATicket() throws {
        let h = try PolicyHarness()
        try h.loader.setItems([nil, "ftp://example.test/a.jpg", "not a url", "http://", "http://ok.test/a.png"])
        XCTAssertThrowsError(try h.loader.request(row: 0)) { XCTAssertEqual($0 as? LoaderError, .noImage) }
        XCTAssertThrowsError(try h.loader.request(row: 1)) { XCTAssertEqual($0 as? LoaderError, .badURL) }
        XCTAssertThrowsError(try h.loader.request(row: 2)) { XCTAssertEqual($0 as? LoaderError, .badURL) }
        XCTAssertThrowsError(try h.loader.request(row: 3)) { XCTAssertEqual($0 as? LoaderError, .badURL) }
        XCTAssertThrowsError(try h.loader.request(row: 5)) { XCTAssertEqual($0 as? LoaderError, .outOfRange) }
        XCTAssertThrowsError(try h.loader.request(row: -1)) { XCTAssertEqual($0 as? LoaderError, .outOfRange) }
        XCTAssertThrowsError(try h.loader.request(row: .max)) { XCTAssertEqual($0 as? LoaderError, .outOfRange) }
        XCTAssertTrue(try h.loader.request(row: 4).isPending)
        XCTAssertEqual(h.stats.requests, 1)
    }

    func testShutdownEndsEveryTicketOnTheCallingThreadAndRefusesLaterCalls() throws {
        let h = try PolicyHarness()
        try h.loader.setItems(PolicyHarness.urls(10))
        try h.loader.setScrollState(.dragging, velocity: 1)
        let tickets = try (0..<10).map { try XCTUnwrap(h.loader.request(row: $0).ticket) }
        try h.loader.shutdown()
        XCTAssertEqual(h.log.all.count, 10, "delivered before shutdown returned")
        XCTAssertEqual(Set(h.log.all.map(\.ticket)), Set(tickets))
        XCTAssertTrue(h.log.all.allSatisfy { $0.error == .cancelled })
        XCTAssertThrowsError(try h.loader.request(row: 0)) { XCTAssertEqual($0 as? LoaderError, .shutdown) }
        XCTAssertEqual(h.loader.dispatch(max: 0), 0)
        try h.loader.shutdown()  // idempotent
    }

    func testShutdownFromInsideACallbackIsMisuse() throws {
        let box = LoaderBox()
        var config = LoaderConfiguration()
        config.decodeThreads = 1
        let outcome = EventLog()
        let misuse = Locked<LoaderError?>(nil)
        let loader = try ImageLoader(configuration: config, transport: FakeTransport(),
                                     makeDecoder: { WidthFromBytesDecoder() }) { event in
            outcome.record(event)
            do throws(LoaderError) { try box.loader?.shutdown() } catch { misuse.withLock { $0 = error } }
        }
        box.loader = loader
        try loader.setItems(PolicyHarness.urls(1))
        let ticket = try XCTUnwrap(loader.request(row: 0).ticket)
        XCTAssertTrue(try loader.cancel(ticket: ticket))
        XCTAssertEqual(loader.dispatch(max: 0), 1)
        XCTAssertEqual(misuse.withLock { $0 }, LoaderError.misuse)
        XCTAssertEqual(loader.itemCount, 1, "still usable")
        try loader.shutdown()
    }

    /// A callback of one loader dispatches another's events: inside the inner one,
    /// shutting down either is misuse; once both returned, it is not.
    func testShutdownInsideAnotherLoadersCallbackWithinThisOnesIsMisuse() throws {
        var config = LoaderConfiguration()
        config.decodeThreads = 1
        let outer = LoaderBox()
        let inner = LoaderBox()
        let refused = Locked<[LoaderError]>([])
        @Sendable func refuse(_ box: LoaderBox) {
            do throws(LoaderError) { try box.loader?.shutdown() } catch { refused.withLock { $0.append(error) } }
        }
        let innerLoader = try ImageLoader(configuration: config, transport: FakeTransport(),
                                          makeDecoder: { WidthFromBytesDecoder() }) { _ in
            refuse(outer)
            refuse(inner)
        }
        let outerLoader = try ImageLoader(configuration: config, transport: FakeTransport(),
                                          makeDecoder: { WidthFromBytesDecoder() }) { _ in
            _ = inner.loader?.dispatch(max: 0)
        }
        outer.loader = outerLoader
        inner.loader = innerLoader
        for loader in [outerLoader, innerLoader] {
            try loader.setItems(PolicyHarness.urls(1))
            XCTAssertTrue(try loader.cancel(ticket: XCTUnwrap(loader.request(row: 0).ticket)))
        }
        XCTAssertEqual(outerLoader.dispatch(max: 0), 1)
        XCTAssertEqual(refused.withLock { $0 }, [.misuse, .misuse])
        try innerLoader.shutdown()
        try outerLoader.shutdown()
        XCTAssertEqual(outerLoader.dispatch(max: 0), 0)
    }

    func testThreadDeliveryRunsCallbacksOnAnInternalThread() throws {
        var config = LoaderConfiguration()
        config.delivery = .thread
        config.decodeThreads = 1
        let transport = FakeTransport()
        let arrived = expectation(description: "event")
        let onMainThread = Locked<Bool?>(nil)
        let mainThread = pthread_self()
        let loader = try ImageLoader(configuration: config, transport: transport,
                                     makeDecoder: { WidthFromBytesDecoder() }) { _ in
            onMainThread.withLock { $0 = pthread_equal(pthread_self(), mainThread) != 0 }
            arrived.fulfill()
        }
        transport.waitsFor(loader)
        try loader.setItems(PolicyHarness.urls(1))
        _ = try loader.request(row: 0)
        transport.complete("http://example.test/0.jpg", with: .success([1]))
        wait(for: [arrived], timeout: 10)
        XCTAssertEqual(onMainThread.withLock { $0 }, false)
        XCTAssertEqual(loader.eventFD, -1)
        XCTAssertThrowsError(try loader.waitForEvents(milliseconds: 0))
        try loader.shutdown()
    }

    /// Random sequences of every operation: each ticket gets exactly one event, for
    /// its own row, and nothing else arrives.
    func testEveryTicketGetsExactlyOneEventForItsRow() throws {
        var rng = SplitMix(seed: 42)
        for _ in 0..<20 {
            let h = try PolicyHarness(maxConcurrent: 3, prefetchRows: 2)
            try h.loader.setItems((0..<40).map { "http://example.test/\($0 % 13).jpg" })
            var issued: [UInt64: Int] = [:]
            for _ in 0..<200 {
                switch rng.next() % 8 {
                case 0, 1, 2:
                    let row = Int(rng.next() % 40)
                    // A recently failed URL answers with its error: no ticket, no event.
                    if let ticket = (try? h.loader.request(row: row))?.ticket { issued[ticket] = row }
                case 3:
                    if let ticket = issued.keys.randomElement(using: &rng) { _ = try h.loader.cancel(ticket: ticket) }
                case 4:
                    try h.loader.setVisibleRange(first: Int(rng.next() % 35), count: 5)
                case 5:
                    let states: [ScrollState] = [.idle, .dragging, .decelerating]
                    try h.loader.setScrollState(states[Int(rng.next() % 3)], velocity: Double(Int(rng.next() % 21) - 10))
                case 6:
                    if let url = h.transport.liveURLs.randomElement(using: &rng) {
                        let fail = rng.next() % 4 == 0
                        h.transport.complete(url, with: fail ? .failure(.network) : .success([1, 2]))
                    }
                default:
                    _ = h.loader.dispatch(max: Int(rng.next() % 3))
                }
            }
            try h.loader.shutdown()
            var seen: [UInt64: Int] = [:]
            for event in h.log.all {
                XCTAssertEqual(issued[event.ticket], event.row, "event for a ticket we hold, with its row")
                seen[event.ticket, default: 0] += 1
            }
            XCTAssertEqual(seen.count, issued.count)
            XCTAssertTrue(seen.values.allSatisfy { $0 == 1 })
        }
    }
}

final class LoaderBox: @unchecked Sendable {
    var loader: ImageLoader?
}

final class LoaderListReplacementTests: XCTestCase {
    func testANewListKeepsDownloadsItStillWantsAndStopsTheRest() throws {
        let h = try PolicyHarness(prefetchRows: 0)
        try h.loader.setItems(["http://example.test/keep.jpg", "http://example.test/drop.jpg"])
        try h.loader.setVisibleRange(first: 0, count: 2)
        XCTAssertEqual(h.transport.liveURLs, ["http://example.test/keep.jpg", "http://example.test/drop.jpg"])
        try h.loader.setItems(["http://example.test/other.jpg", "http://example.test/keep.jpg"])
        XCTAssertEqual(h.transport.liveURLs, ["http://example.test/keep.jpg", "http://example.test/other.jpg"])
        XCTAssertEqual(h.stats.downloadsCancelled, 1)
        XCTAssertEqual(h.stats.downloadsStarted, 3)
    }
}
#endif
