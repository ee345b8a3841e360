import LazyImgCore

/// The bandwidth cap: one link shared by every connection of the server. Each chunk
/// books the next free slot on the link's timeline and is sent when its slot ends,
/// so concurrent responses share the rate instead of each getting all of it.
final class LinkPacer: Sendable {
    private let nanosecondsPerByte: Double
    /// When the link is free again, in monotonic ns.
    private let nextFree = Locked(Int64(0))

    /// `bytesPerSecond` 0 = no cap.
    init(bytesPerSecond: Int) {
        nanosecondsPerByte = bytesPerSecond > 0 ? 1e9 / Double(bytesPerSecond) : 0
    }

    /// When (on the monotonic clock, in ns) `bytes` bytes sent now have crossed the link.
    func book(_ bytes: Int) -> Int64 {
        let now = monotonicNanoseconds()
        guard nanosecondsPerByte > 0 else { return now }
        let duration = Int64(Double(bytes) * nanosecondsPerByte)
        return nextFree.withLock { free in
            free = max(free, now) + duration
            return free
        }
    }
}
