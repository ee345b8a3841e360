import Synchronization

/// A running transfer's progress, written by the network thread's write callback
/// and read by the scheduler without either waiting on the other.
final class TransferCounters: Sendable {
    private let received = Atomic<Int>(0)
    /// -1 until the server announces a length.
    private let expected = Atomic<Int>(-1)

    func didReceive(total: Int) {
        received.store(total, ordering: .relaxed)
    }

    func didAnnounce(length: Int) {
        expected.store(length, ordering: .relaxed)
    }

    var progress: TransferProgress {
        let expected = expected.load(ordering: .relaxed)
        return TransferProgress(received: received.load(ordering: .relaxed), expected: expected >= 0 ? expected : nil)
    }
}
