#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_5 // ThreadSanitizer group 5 (see the Makefile's tsan)
import Dispatch
import XCTest
@testable import LazyImgCore

/// `Locked` keeps its state in one block with the mutex: a state of any alignment
/// and with references lives there, and leaves with the lock.
final class LockedTests: XCTestCase {
    private final class Tracked {}

    /// Wider than the mutex's own alignment, with a reference and a flag after it.
    private struct Wide {
        var lanes = SIMD16<Float>(repeating: 1)
        var tracked: Tracked?
        var flag = false
    }

    func testAStateOfWideAlignmentIsKeptAndReleasedWithTheLock() {
        weak var watched: Tracked?
        do {
            let tracked = Tracked()
            watched = tracked
            let locked = Locked(Wide(tracked: tracked))
            locked.withLock { state in
                state.lanes[15] = 7
                state.flag = true
            }
            XCTAssertEqual(locked.withLock { $0.lanes[15] }, 7)
            XCTAssertTrue(locked.withLock { $0.flag })
            XCTAssertEqual(locked.withLock { state in
                UInt(bitPattern: withUnsafePointer(to: &state.lanes) { Int(bitPattern: $0) }) % UInt(MemoryLayout<SIMD16<Float>>.alignment)
            }, 0, "the state is aligned as its type needs")
        }
        XCTAssertNil(watched, "the state's reference went with the lock")
    }

    func testThreadsTakingTheLockSeeEachOthersWrites() {
        let locked = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<10_000 { locked.withLock { $0 += 1 } }
        }
        XCTAssertEqual(locked.withLock { $0 }, 40_000)
    }
}
#endif
