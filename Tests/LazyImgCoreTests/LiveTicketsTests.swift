#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_1 // ThreadSanitizer group 1 (see the Makefile's tsan)
import XCTest
@testable import LazyImgCore

/// The live tickets: numbered 1, 2, 3..., each ended once, in any order, and the
/// long-lived ones kept past the array's bound.
final class LiveTicketsTests: XCTestCase {
    func testTicketsAreNumberedInOrderAndEndOnceInAnyOrder() {
        var live = LiveTickets<String>()
        XCTAssertEqual(["a", "b", "c", "d"].map { live.open($0) }, [1, 2, 3, 4])
        XCTAssertEqual(live.retire(3), "c")
        XCTAssertNil(live.retire(3), "ended once")
        XCTAssertEqual(live.retire(1), "a")
        XCTAssertNil(live.retire(0), "never a ticket")
        XCTAssertNil(live.retire(5), "not opened yet")
        XCTAssertEqual(live.open("e"), 5, "never reused")
        XCTAssertEqual(live.retire(2), "b")
        XCTAssertEqual(live.retire(5), "e")
        XCTAssertEqual(live.retire(4), "d")
        XCTAssertEqual(live.open("f"), 6, "numbers go on after every ticket ended")
        XCTAssertEqual(live.retire(6), "f")
    }

    func testALongLivedTicketOutlivesTheWindowAndEndsLater() {
        var live = LiveTickets<Int>()
        let kept = live.open(-1)
        let count = 3 * LiveTickets<Int>.maxWindow
        for value in 0..<count {
            let number = live.open(value)
            XCTAssertEqual(number, kept + 1 + UInt64(value))
            if value % 7 != 0 { XCTAssertEqual(live.retire(number), value) }
        }
        XCTAssertEqual(live.retire(kept), -1, "moved out of the window, still live")
        XCTAssertNil(live.retire(kept))
        let ended = live.retireAll { _ in true }
        XCTAssertEqual(ended.map(\.ticket), Array(stride(from: 0, to: count, by: 7)), "the rest, oldest first")
        XCTAssertEqual(ended.map(\.number), ended.map { kept + 1 + UInt64($0.ticket) })
        XCTAssertTrue(live.retireAll { _ in true }.isEmpty)
    }

    func testAnyOrderOfOpeningsAndEndingsAnswersAsADictionaryWould() {
        var live = LiveTickets<Int>()
        var model: [UInt64: Int] = [:]
        var random = SystemRandomNumberGenerator()
        var opened: UInt64 = 0
        for step in 0..<60_000 {
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<5:
                opened += 1
                XCTAssertEqual(live.open(step), opened)
                model[opened] = step
            case 5..<9:
                // Mostly recent tickets, sometimes any, sometimes one never opened.
                let back = UInt64.random(in: 0...(Bool.random(using: &random) ? 20 : opened + 2), using: &random)
                let number = opened &+ 1 &- back
                XCTAssertEqual(live.contains(number), model[number] != nil, "ticket \(number) at step \(step)")
                XCTAssertEqual(live.retire(number), model.removeValue(forKey: number), "ticket \(number) at step \(step)")
            default:
                guard Int.random(in: 0..<200, using: &random) == 0 else { continue }
                let ended = live.retireAll { $0 % 3 == 0 }
                let expected = model.filter { $0.value % 3 == 0 }.keys.sorted()
                XCTAssertEqual(ended.map(\.number), expected)
                for number in expected { model[number] = nil }
            }
        }
        XCTAssertEqual(live.retireAll { _ in true }.map(\.number), model.keys.sorted())
    }

    func testRetireAllTakesWhatItSelectsOldestFirst() {
        var live = LiveTickets<Int>()
        for value in 1...10 { _ = live.open(value) }
        XCTAssertEqual(live.retireAll { $0 % 2 == 0 }.map(\.number), [2, 4, 6, 8, 10])
        XCTAssertEqual(live.retire(4), nil)
        XCTAssertEqual(live.retire(5), 5)
        XCTAssertEqual(live.retireAll { _ in true }.map(\.ticket), [1, 3, 7, 9])
    }
}
#endif
