#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_4 // ThreadSanitizer group 4 (see the Makefile's tsan)
import XCTest
@testable import LazyImgCore

/// A host that calls the view functions in a loop with no pause must not grow the
/// scheduler's queues without bound: past the input ring's slots, view calls are
/// folded into the latest of their kind, which the scheduler still sees.
final class HostInputBoundTests: XCTestCase {
    func testViewCallsInALoopFoldOnceTheRingIsFullAndTheLastOneCounts() throws {
        let h = try PolicyHarness()
        try h.loader.setItems(PolicyHarness.urls(400))
        try h.loader.setScrollState(.idle, velocity: 0)
        h.settle()
        // Every host input sent through the inbox is counted beside the ring's tail.
        var sentToInbox: UInt64 { h.loader.hostRing.inputsGiven - h.loader.hostRing.claimed }
        let inboxBefore = sentToInbox
        let givenBefore = h.loader.hostRing.inputsGiven
        // The scheduler takes the first calls, then waits for the front's lock at the
        // end of its step (the visible rows changed), so the rest wait in the ring.
        h.loader.front.withLock { _ in
            for call in 0..<200_000 {
                try? h.loader.setVisibleRange(first: call % 2 == 0 ? 100 : 200, count: 10)
            }
            try? h.loader.setVisibleRange(first: 300, count: 10)
        }
        XCTAssertEqual(sentToInbox, inboxBefore, "no view call went to the unbounded inbox")
        XCTAssertLessThan(h.loader.hostRing.inputsGiven - givenBefore, 200_001, "calls past the ring's slots were not queued")
        XCTAssertGreaterThan(h.loader.loop.viewCallsFolded.load(ordering: .relaxed), 0, "calls past it were folded")
        h.settle()
        let lastRange = Set((300..<310).map { "http://example.test/\($0).jpg" })
        XCTAssertFalse(h.transport.liveURLs.isEmpty)
        XCTAssertTrue(h.transport.liveURLs.isSubset(of: lastRange),
                      "the last call, folded, is the range the scheduler loads: \(h.transport.liveURLs)")
    }
}
#endif
