/// Whether the list's motion shows the user reading, which is what prefetch ahead
/// bets on. A fast motion (a fling, a fast drag, an animated jump) says the opposite:
/// the next gesture is as likely another fling, which passes the rows too fast to
/// show them, or a turn. Reading is shown again by a slow drag from rest, or by a
/// touch that catches the list still moving and keeps it slow for
/// `catchHoldMilliseconds`: held still or dragged slowly, then perhaps let go to glide
/// slowly. Let go to rest before that, the catch only ended the fling.
///
/// A catch alone is not reading: a fling back, or another fling, starts with one. The
/// finger stops the list, turns and flicks, and rows prefetched ahead in the old
/// direction in those few frames are never shown.
struct ReadingSignal {
    /// About a human's reaction to what they see (0.2-0.25 s). A fling back or
    /// another fling after a catch was decided before the touch and follows it
    /// within that; a user who stopped the list to look needs at least that long to
    /// see what they stopped on.
    static let catchHoldMilliseconds: Int64 = 250

    /// No fast motion yet, or reading shown since the last one: prefetch ahead.
    private(set) var showsReading = true
    /// When a touch caught the list still moving after a fast motion, while it holds
    /// the list slow.
    private var caughtAt: Int64?

    /// One report of the host: `fast` when faster than the slow-scroll speed,
    /// `previous` the state reported before it.
    mutating func record(_ state: ScrollState, fast: Bool, previous: ScrollState, at milliseconds: Int64) {
        if fast && state != .idle {
            showsReading = false
            caughtAt = nil
            return
        }
        guard !showsReading else { return }
        switch state {
        case .dragging where previous == .idle:
            // A finger moving a resting list slowly: the user reads on.
            showsReading = true
        case .dragging:
            let since = caughtAt ?? milliseconds
            caughtAt = since
            showsReading = Self.held(from: since, to: milliseconds)
        case .decelerating:
            // Let go slowly after a hold: the hold goes on. (A fast motion's own slow
            // tail, with no touch, shows nothing.)
            if let since = caughtAt { showsReading = Self.held(from: since, to: milliseconds) }
        case .idle:
            // Let go: a hold long enough is reading, a shorter one ended the fling.
            if let since = caughtAt { showsReading = Self.held(from: since, to: milliseconds) }
        }
        if showsReading || state == .idle { caughtAt = nil }
    }

    private static func held(from start: Int64, to end: Int64) -> Bool {
        let (elapsed, overflow) = end.subtractingReportingOverflow(start)
        return !overflow && elapsed >= catchHoldMilliseconds
    }
}
