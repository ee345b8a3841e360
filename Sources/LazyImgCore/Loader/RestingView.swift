import Synchronization

/// The view of a list at rest, published by the scheduler for the host's next frames.
///
/// At rest a UI repeats the same IDLE state and visible range every frame, and once
/// the list has settled those repeats change nothing (`ViewState.repeatsChangeNothing`).
/// The scheduler publishes the resting rows with how many of the host's inputs it had
/// read then; a repeat made while no other input has been given since is dropped by
/// the host's thread after two atomic loads, instead of going to the scheduler (and,
/// at rest, waking it).
final class RestingView: Sendable {
    /// The host inputs read when published, plus one; 0 = nothing published.
    private let generation = Atomic<UInt64>(0)
    /// The visible rows, lower bound << 32 | upper bound.
    private let visible = Atomic<UInt64>(0)

    /// The scheduler: publishes `rows` as the resting view after reading `inputs` of
    /// the host's inputs, or withdraws it (nil, or bounds too large to pack).
    func publish(_ rows: Range<Int>?, afterInputs inputs: UInt64) {
        guard let rows, let packed = Self.pack(rows) else {
            generation.store(0, ordering: .releasing)
            return
        }
        generation.store(0, ordering: .releasing)
        visible.store(packed, ordering: .releasing)
        generation.store(inputs &+ 1, ordering: .releasing)
    }

    /// A host's thread: whether the resting view is still the scheduler's, with `rows`
    /// visible (nil: whatever rows), given how many host inputs were pushed so far.
    /// The rows are stored between two stores of the generation, so rows read with
    /// the same nonzero generation on both sides are the ones published with it.
    func isCurrent(inputsPushed: UInt64, rows: Range<Int>?) -> Bool {
        let published = generation.load(ordering: .acquiring)
        guard published != 0, published == inputsPushed &+ 1 else { return false }
        let packed = visible.load(ordering: .acquiring)
        guard generation.load(ordering: .acquiring) == published else { return false }
        guard let rows else { return true }
        return Self.pack(rows) == packed
    }

    static func pack(_ rows: Range<Int>) -> UInt64? {
        guard rows.upperBound <= Int(UInt32.max) else { return nil }
        return UInt64(rows.lowerBound) << 32 | UInt64(rows.upperBound)
    }
}
