#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_1 // ThreadSanitizer group 1 (see the Makefile's tsan)
import TestSupport
import XCTest
@testable import LazyImgCore

/// While the list flies, the CANCELLED events of rows that left the window are
/// queued in batches (`SchedulerLoop.cancellationHoldMilliseconds`): at most that
/// long after the first, at once when the list settles, when enough wait, or at
/// shutdown. Each ticket still gets exactly one event.
final class HeldCancellationTests: XCTestCase {
    /// A flying list (far faster than a screen a second) with `count` rows in view,
    /// each asked for, so each holds a DEFERRED ticket.
    private func flyingList(rows count: Int) throws -> (PolicyHarness, [UInt64]) {
        let h = try PolicyHarness()
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
        XCTAssertGreaterThanOrEqual(waited, SchedulerLoop.cancellationHoldMilliseconds)
        assertCancelledOnce(tickets, in: h.log)
    }

    func testSettlingQueuesTheHeldCancellationsAtOnce() throws {
        let (h, tickets) = try flyingList(rows: 10)
        try h.loader.setVisibleRange(first: 50, count: 10)
        h.settle()
        try h.loader.setScrollState(.idle, velocity: 0)
        h.settle()
        XCTAssertEqual(h.loader.dispatch(max: 0), 10, "queued by the step that saw the list settle")
        assertCancelledOnce(tickets, in: h.log)
    }

    func testEnoughHeldCancellationsAreQueuedWithoutWaiting() throws {
        let rows = SchedulerLoop.maxHeldCancellations + 6
        let (h, tickets) = try flyingList(rows: rows)
        try h.loader.setVisibleRange(first: 5 * rows, count: rows)
        h.settle()
        XCTAssertEqual(h.loader.dispatch(max: 0), rows, "queued by the step that held too many")
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
        let (h, tickets) = try flyingList(rows: 10)
        try h.loader.setVisibleRange(first: 50, count: 10)
        h.settle()
        try h.loader.shutdown()
        assertCancelledOnce(tickets, in: h.log)
    }
}
#endif
