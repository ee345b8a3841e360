#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_1 // ThreadSanitizer group 1 (see the Makefile's tsan)
import TestSupport
import XCTest
@testable import LazyImgCore

/// While the list flies, the CANCELLED events of rows that left the window are
/// queued in batches (`LoaderConfiguration.cancellationHoldMilliseconds`): that
/// long after the first, at once when the list settles, when enough wait, before
/// a later event for the same row, on a new list, and at shutdown. Each ticket
/// still gets exactly one event.
final class HeldCancellationTests: XCTestCase {
    /// A flying list (far faster than a screen a second) with `count` rows in view,
    /// each asked for, so each holds a DEFERRED ticket. `holdMilliseconds`: a hold
    /// long enough that only the trigger under test can end it.
    private func flyingList(rows count: Int, holdMilliseconds: Int64? = nil) throws -> (PolicyHarness, [UInt64]) {
        let h = try PolicyHarness(configure: { config in
            if let holdMilliseconds { config.cancellationHoldMilliseconds = holdMilliseconds }
        })
        try h.loader.setItems(PolicyHarness.urls(10 * count))
        try h.loader.setScrollState(.dragging, velocity: Double(100 * count))
        try h.loader.setVisibleRange(first: 0, count: count)
        let tickets = try (0..<count).map { row -> UInt64 in
            let result = try h.loader.request(row: row)
            XCTAssertTrue(result.isDeferred, "row \(row) while flying")
            return try XCTUnwrap(result.ticket)
        }
        return (h, tickets)
    }

    /// Every ticket ended CANCELLED, once.
    private func assertCancelledOnce(_ tickets: [UInt64], in log: EventLog, file: StaticString = #filePath,
                                     line: UInt = #line) {
        for ticket in tickets {
            let events = log.events(for: ticket)
            XCTAssertEqual(events.count, 1, "ticket \(ticket)", file: file, line: line)
            XCTAssertEqual(events.first?.error, .cancelled, "ticket \(ticket)", file: file, line: line)
        }
        XCTAssertEqual(log.all.count, tickets.count, file: file, line: line)
    }

    func testCancellationsWhileFlyingComeTogetherAfterTheHold() throws {
        let (h, tickets) = try flyingList(rows: 10)
        let left = MonotonicClock().nowMilliseconds
        try h.loader.setVisibleRange(first: 50, count: 10)
        // Waits on the event queue: the first batch is all ten, and not before the hold.
        guard try h.loader.waitForEvents(milliseconds: HangGuard.eventMilliseconds) else {
            return XCTFail("no event")
        }
        let waited = MonotonicClock().nowMilliseconds - left
        XCTAssertEqual(h.loader.dispatch(max: 0), 10, "the ten rows' cancellations in one batch")
        XCTAssertGreaterThanOrEqual(waited, LoaderConfiguration().cancellationHoldMilliseconds)
        assertCancelledOnce(tickets, in: h.log)
    }

    /// Held for ten minutes: nothing but the trigger under test queues them.
    private let longHold: Int64 = 600_000

    func testSettlingQueuesTheHeldCancellationsAtOnce() throws {
        let (h, tickets) = try flyingList(rows: 10, holdMilliseconds: longHold)
        try h.loader.setVisibleRange(first: 50, count: 10)
        h.settle()
        XCTAssertEqual(h.loader.dispatch(max: 0), 0, "held while the list flies")
        try h.loader.setScrollState(.idle, velocity: 0)
        h.settle()
        XCTAssertEqual(h.loader.dispatch(max: 0), 10, "queued by the step that saw the list settle")
        assertCancelledOnce(tickets, in: h.log)
    }

    func testEnoughHeldCancellationsAreQueuedWithoutWaiting() throws {
        let rows = SchedulerLoop.maxHeldCancellations + 6
        let (h, tickets) = try flyingList(rows: rows, holdMilliseconds: longHold)
        try h.loader.setVisibleRange(first: 5 * rows, count: rows)
        h.settle()
        XCTAssertEqual(h.loader.dispatch(max: 0), rows, "queued by the step that held too many")
        assertCancelledOnce(tickets, in: h.log)
    }

    func testFewerThanEnoughWait() throws {
        let rows = SchedulerLoop.maxHeldCancellations - 1
        let (h, _) = try flyingList(rows: rows, holdMilliseconds: longHold)
        try h.loader.setVisibleRange(first: 5 * rows, count: rows)
        h.settle()
        XCTAssertEqual(h.loader.dispatch(max: 0), 0)
    }

    func testARowsLaterEventComesAfterItsHeldCancellation() throws {
        let (h, tickets) = try flyingList(rows: 10, holdMilliseconds: longHold)
        try h.loader.setVisibleRange(first: 50, count: 10)
        h.settle()
        // Flung back towards rows 0-9 (the host's target), braking hard so that the
        // landing is due (LoaderSchedulingTests' hard braking): row 3 is asked
        // again, and its image loads while the list still moves.
        try h.loader.setScrollState(.dragging, velocity: -300)
        try h.loader.setScrollTarget(first: 0, count: 10)
        for speed in [-250.0, -220, -194, -170] {
            h.clock.advance(by: 16)
            try h.loader.setScrollState(.decelerating, velocity: speed)
        }
        let again = try XCTUnwrap(h.loader.request(row: 3).ticket)
        h.settle()
        XCTAssertEqual(h.loader.dispatch(max: 0), 0, "the list still flies: held")
        XCTAssertTrue(h.transport.complete("http://example.test/3.jpg", with: .success([1])))
        h.deliver(until: 11)
        let forRow3 = h.log.all.filter { $0.row == 3 }.map(\.ticket)
        XCTAssertEqual(forRow3, [tickets[3], again], "the old ticket's CANCELLED first, then the image")
        XCTAssertNotNil(h.log.events(for: again).first?.image)
    }

    func testANewListQueuesTheOldListsHeldCancellations() throws {
        let (h, tickets) = try flyingList(rows: 10, holdMilliseconds: longHold)
        try h.loader.setVisibleRange(first: 50, count: 10)
        h.settle()
        try h.loader.setItems(PolicyHarness.urls(5))
        h.settle()
        XCTAssertEqual(h.loader.dispatch(max: 0), 10, "queued before anything of the new list")
        assertCancelledOnce(tickets, in: h.log)
    }

    func testAHeldCancellationIsDecidedAlready() throws {
        let (h, tickets) = try flyingList(rows: 10)
        try h.loader.setVisibleRange(first: 50, count: 10)
        h.settle()
        // Its event is decided (the ticket retired), only not queued yet: the host's
        // cancel finds no live ticket, and adds no second event.
        XCTAssertFalse(try h.loader.cancel(ticket: tickets[3]))
        h.deliver(until: 10)
        assertCancelledOnce(tickets, in: h.log)
    }

    func testShutdownDeliversTheHeldCancellations() throws {
        let (h, tickets) = try flyingList(rows: 10, holdMilliseconds: longHold)
        try h.loader.setVisibleRange(first: 50, count: 10)
        h.settle()
        XCTAssertEqual(h.loader.dispatch(max: 0), 0, "held while the list flies")
        try h.loader.shutdown()
        assertCancelledOnce(tickets, in: h.log)
    }
}
#endif
