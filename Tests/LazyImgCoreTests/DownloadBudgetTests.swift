#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_4 // ThreadSanitizer group 4 (see the Makefile's tsan)
@testable import LazyImgCore
import XCTest

/// The rules of the download budget on their own: transfers and queued files share
/// the limit, one lead may pass it, and whoever was refused is woken when bytes
/// come back.
final class DownloadBudgetTests: XCTestCase {
    private final class Transfer {}
    private let a = Transfer(), b = Transfer()
    private var idA: ObjectIdentifier { ObjectIdentifier(a) }
    private var idB: ObjectIdentifier { ObjectIdentifier(b) }

    func testTransfersAndQueuedFilesShareTheLimit() {
        let budget = DownloadBudget(limit: 100)
        budget.queue(60)
        XCTAssertTrue(budget.admit(30, for: idA, holding: 0))
        XCTAssertEqual(budget.heldBytes, 90)
        XCTAssertTrue(budget.admit(20, for: idB, holding: 0), "past the limit as the lead: all else fits")
        XCTAssertFalse(budget.admit(10, for: idA, holding: 30), "one lead at a time")
        XCTAssertTrue(budget.admit(50, for: idB, holding: 20), "the lead goes on")
        XCTAssertEqual(budget.heldBytes, 160)
    }

    func testNoLeadWhileWhatElseIsHeldIsOverTheLimit() {
        let budget = DownloadBudget(limit: 100)
        budget.queue(150)
        XCTAssertFalse(budget.admit(10, for: idA, holding: 0), "a decode queue over the limit drains first")
        budget.unqueue(100)
        XCTAssertTrue(budget.admit(10, for: idA, holding: 0))
    }

    func testTheLeadEndsWithItsTransfer() {
        let budget = DownloadBudget(limit: 100)
        XCTAssertTrue(budget.admit(90, for: idA, holding: 0))
        XCTAssertTrue(budget.admit(50, for: idB, holding: 0))
        XCTAssertFalse(budget.admit(20, for: idA, holding: 90))
        budget.release(50, of: idB)
        XCTAssertTrue(budget.admit(20, for: idA, holding: 90), "the lead is free again")
        XCTAssertEqual(budget.heldBytes, 110)
    }

    func testARefusedTransferIsWokenOnceWhenBytesComeBack() {
        let budget = DownloadBudget(limit: 100)
        let wakes = Locked(0)
        budget.wakeWhenRoom(ObjectIdentifier(self)) { wakes.withLock { $0 += 1 } }
        budget.queue(200)
        budget.unqueue(10)
        XCTAssertEqual(wakes.withLock { $0 }, 0, "nobody waited")
        XCTAssertFalse(budget.admit(10, for: idA, holding: 0))
        budget.unqueue(10)
        budget.unqueue(10)
        XCTAssertEqual(wakes.withLock { $0 }, 1, "one wake per refusal")
    }
}
#endif
