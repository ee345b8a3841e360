import Synchronization

/// The view of a list at rest, published for the host's next frame.
///
/// At rest a UI repeats the same IDLE state and visible range every frame, and when
/// nothing else happened since, those repeats change nothing
/// (`ViewState.repeatsChangeNothing`). This lets the loader answer them from two
/// atomic loads instead of its lock, its state and the scheduling window: after a
/// frame's gap each of those calls cost 10-14 us at p50 on the 2-core development
/// machine (`make bench-frame-gap`), nearly all of it cache misses on the code and
/// data it touched, where a call that touches almost nothing costs 2-3 us.
///
/// "Nothing else happened" is exact: the view is current only while the loader's
/// lock has been taken no more times than when it was published, by any thread for
/// any reason (a memory hit, a completion, a stats read).
final class RestingView: Sendable {
    /// The lock's count when published; 0 = nothing published.
    private let lockCount = Atomic<UInt64>(0)
    /// The visible rows, lower bound << 32 | upper bound.
    private let visible = Atomic<UInt64>(0)

    /// With the loader's lock held: publishes `visible` as the resting view, or
    /// withdraws it (nil, or bounds too large to pack).
    func publish<State>(_ rows: Range<Int>?, under lock: Locked<State>) {
        guard let rows, let packed = Self.pack(rows) else {
            lockCount.store(0, ordering: .releasing)
            return
        }
        visible.store(packed, ordering: .releasing)
        lockCount.store(lock.timesTaken, ordering: .releasing)
    }

    /// Without the lock: whether the resting view published is still the loader's,
    /// with `rows` visible (nil: whatever rows). A newer publish writes its rows
    /// after its count moved the lock's on, so rows read with an unchanged count are
    /// the published ones.
    func isCurrent<State>(under lock: Locked<State>, rows: Range<Int>?) -> Bool {
        let published = lockCount.load(ordering: .acquiring)
        guard published != 0 else { return false }
        let packed = visible.load(ordering: .acquiring)
        guard lock.timesTaken == published else { return false }
        guard let rows else { return true }
        return Self.pack(rows) == packed
    }

    private static func pack(_ rows: Range<Int>) -> UInt64? {
        guard rows.upperBound <= Int(UInt32.max) else { return nil }
        return UInt64(rows.lowerBound) << 32 | UInt64(rows.upperBound)
    }
}
