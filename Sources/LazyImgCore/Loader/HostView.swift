import Synchronization

/// The view as the host's threads last told it, and the landing zone as the
/// scheduler last derived it, in atomics: what a request that misses reads to answer
/// PENDING or DEFERRED at once, while the scheduler decides the rest on its thread.
///
/// A request is DEFERRED while the list moves faster than the slow-scroll speed,
/// except in the landing zone (`SchedulingWindow.holds`). The motion is the host's
/// latest call, which the request follows on the same thread; the landing zone is
/// the scheduler's, a moment old at most.
final class HostView: Sendable {
    private let scroll = Atomic<UInt8>(0)
    private let velocity = Atomic<UInt64>(0)
    /// The visible row count plus one; 0 before the first visible range.
    private let visibleCount = Atomic<Int>(0)
    /// The scheduler's landing zone, packed as `RestingView.pack`; 0 = none.
    private let landing = Atomic<UInt64>(0)
    /// `LoaderConfiguration.slowScrollRowsPerSecond`.
    private let slowRowsPerSecond: Double

    init(slowRowsPerSecond: Double) {
        self.slowRowsPerSecond = slowRowsPerSecond
    }

    /// A host's `setScrollState`.
    func setScroll(_ state: ScrollState, velocity: Double) {
        self.velocity.store(velocity.bitPattern, ordering: .relaxed)
        scroll.store(state.code, ordering: .relaxed)
    }

    /// A host's `setVisibleRange`.
    func setVisible(_ rows: Range<Int>) {
        visibleCount.store(rows.count.addingClamped(1), ordering: .relaxed)
    }

    /// The scheduler, after each change: the rows a fast list may start.
    func publishLanding(_ rows: Range<Int>) {
        landing.store(rows.isEmpty ? 0 : RestingView.pack(rows) ?? 0, ordering: .relaxed)
    }

    /// Whether a request for `row` that missed is held back by the motion.
    func holds(_ row: Int) -> Bool {
        guard scroll.load(ordering: .relaxed) != ScrollState.idle.code else { return false }
        let counted = visibleCount.load(ordering: .relaxed)
        // Before the first visible range every motion holds (`ViewState.window`).
        guard counted > 0 else { return true }
        let slowSpeed = slowRowsPerSecond > 0 ? slowRowsPerSecond : Double(max(1, counted - 1))
        guard abs(Double(bitPattern: velocity.load(ordering: .relaxed))) >= slowSpeed else { return false }
        let packed = landing.load(ordering: .relaxed)
        guard packed != 0 else { return true }
        return !(Int(packed >> 32)..<Int(packed & 0xFFFF_FFFF)).contains(row)
    }
}
