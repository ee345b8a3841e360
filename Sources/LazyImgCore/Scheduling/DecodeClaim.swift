import Synchronization

/// Whether a queued decode is still wanted when a worker reaches it, decided once.
///
/// The scheduler says whether the job is wanted as that changes (its rows left the
/// window, or came back); the worker claims the job before decoding, or skips it,
/// and from then on the answer stands. A decode whose rows left while it waited for
/// a worker is not run, without the worker asking the scheduler's thread.
final class DecodeClaim: Sendable {
    private static let wanted: UInt8 = 0, unwanted: UInt8 = 1, claimed: UInt8 = 2, skipped: UInt8 = 3
    private let state = Atomic<UInt8>(DecodeClaim.wanted)

    /// The scheduler: whether the job is wanted now. No effect once a worker decided.
    func setWanted(_ isWanted: Bool) {
        let (from, to) = isWanted ? (Self.unwanted, Self.wanted) : (Self.wanted, Self.unwanted)
        _ = state.compareExchange(expected: from, desired: to, ordering: .relaxed)
    }

    /// A worker, before decoding: true to decode, false to skip. Called once.
    func claim() -> Bool {
        var current = state.load(ordering: .relaxed)
        while true {
            let decided = current == Self.wanted ? Self.claimed : Self.skipped
            let (exchanged, found) = state.compareExchange(expected: current, desired: decided, ordering: .relaxed)
            if exchanged { return decided == Self.claimed }
            current = found
        }
    }
}

extension DecodeClaim: Equatable {
    static func == (a: DecodeClaim, b: DecodeClaim) -> Bool { a === b }
}
