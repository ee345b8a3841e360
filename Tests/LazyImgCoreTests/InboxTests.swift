#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_1 // ThreadSanitizer group 1 (see the Makefile's tsan)
import XCTest
@testable import LazyImgCore

/// The scheduler's input queue: every push taken once, each thread's pushes in its
/// order, and the nodes of taken pushes reused by later ones. (How many nodes the
/// threads' pushes reuse depends on how the consumer keeps up: only the
/// single-threaded tests count them.)
final class InboxTests: XCTestCase {
    func testAPushAfterATakeReusesTheTakenNodes() {
        let inbox = Inbox<Int>()
        var batch: [Int] = []
        for value in 0..<10 { inbox.push(value) }
        XCTAssertEqual(inbox.takeAll(into: &batch), 10)
        for value in 10..<20 { inbox.push(value) }
        XCTAssertEqual(inbox.takeAll(into: &batch), 10)
        XCTAssertEqual(batch, Array(0..<20))
        XCTAssertEqual(inbox.nodesAllocated, 10, "the second ten pushes took the first ten's nodes")
    }

    func testATakeKeepsAtMostMaxSpareNodes() {
        let inbox = Inbox<Int>()
        var batch: [Int] = []
        let many = Inbox<Int>.maxSpareNodes * 2
        for value in 0..<many { inbox.push(value) }
        inbox.takeAll(into: &batch)
        for value in 0..<many { inbox.push(value) }
        inbox.takeAll(into: &batch)
        XCTAssertEqual(inbox.nodesAllocated, many + many - Inbox<Int>.maxSpareNodes)
        XCTAssertEqual(batch, Array(0..<many) + Array(0..<many))
    }

    func testPushesFromSeveralThreadsAreTakenOnceEachInEachThreadsOrder() throws {
        struct Push { let thread: Int; let sequence: Int }
        let inbox = Inbox<Push>()
        let threads = 4
        let pushesPerThread = 20_000
        let pushers = try (0..<threads).map { thread in
            try XCTUnwrap(NativeThread(name: "test-push-\(thread)") {
                for sequence in 0..<pushesPerThread { inbox.push(Push(thread: thread, sequence: sequence)) }
            })
        }
        var next = [Int](repeating: 0, count: threads)
        var batch: [Push] = []
        while next.reduce(0, +) < threads * pushesPerThread {
            batch.removeAll(keepingCapacity: true)
            guard inbox.takeAll(into: &batch) > 0 else {
                sched_yield()
                continue
            }
            for push in batch {
                XCTAssertEqual(push.sequence, next[push.thread], "thread \(push.thread)'s pushes out of order")
                next[push.thread] = push.sequence + 1
            }
        }
        pushers.forEach { $0.join() }
        XCTAssertTrue(inbox.isEmpty)
    }
}
#endif
