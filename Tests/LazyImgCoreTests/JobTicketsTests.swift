#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_2 // ThreadSanitizer group 2 (see the Makefile's tsan)
@testable import LazyImgCore
import XCTest

/// A job's tickets hold the first inline and the rest in a table; whichever is
/// removed, the others stay findable and are all iterated once.
final class JobTicketsTests: XCTestCase {
    func testOneTicketAddedAndRemoved() {
        var tickets = JobTickets()
        XCTAssertTrue(tickets.isEmpty)
        tickets[7] = 3
        XCTAssertFalse(tickets.isEmpty)
        XCTAssertEqual(tickets[7], 3)
        XCTAssertNil(tickets[8])
        XCTAssertEqual(tickets.anyRow, 3)
        tickets[7] = nil
        XCTAssertTrue(tickets.isEmpty)
        XCTAssertNil(tickets[7])
        XCTAssertNil(tickets.anyRow)
    }

    func testRemovingTheFirstKeepsTheOthers() {
        var tickets = JobTickets()
        for id in UInt64(1)...5 { tickets[id] = Int(id) * 10 }
        tickets[1] = nil
        XCTAssertEqual(tickets.ids.sorted(), [2, 3, 4, 5])
        XCTAssertEqual(tickets.rows.sorted(), [20, 30, 40, 50])
        tickets[4] = nil
        XCTAssertEqual(tickets.ids.sorted(), [2, 3, 5])
        for id: UInt64 in [2, 3, 5] { tickets[id] = nil }
        XCTAssertTrue(tickets.isEmpty)
        XCTAssertEqual(Array(tickets.ids), [])
    }

    func testSettingAgainReplacesTheRow() {
        var tickets = JobTickets()
        tickets[1] = 10
        tickets[2] = 20
        tickets[1] = 11
        tickets[2] = 21
        XCTAssertEqual(tickets.map { "\($0.id):\($0.row)" }.sorted(), ["1:11", "2:21"])
    }

    func testACopyIsUnchangedByRemovalsFromTheOriginal() {
        var tickets = JobTickets()
        tickets[1] = 10
        tickets[2] = 20
        let copy = tickets
        tickets[1] = nil
        tickets[2] = nil
        XCTAssertEqual(copy.ids.sorted(), [1, 2])
    }
}
#endif
