/// The rows the scheduler works on for one view of the list, and how it may work on
/// them: derived from `ViewState` after every change, and compared with the previous
/// window so only rows that entered or left are touched.
struct SchedulingWindow: Equatable {
    /// What the motion of the list allows to start.
    enum Motion: Equatable {
        /// At rest or slower than the slow-scroll speed: visible rows, the landing
        /// zone if any, then prefetch ahead.
        case settled
        /// Fast, with no landing zone due: nothing new starts.
        case flying
        /// Fast, with a landing zone due: only rows where the list will rest.
        case landing
    }

    var motion: Motion = .settled
    /// nil until the host reports a visible range: then every row is wanted and
    /// requests start in the order they came.
    var visible: Range<Int>?
    var direction: ScrollDirection = .forward
    /// The rows expected on screen when the list rests, and `landing` those plus a
    /// margin; empty when no prediction is due.
    var rest: Range<Int> = 0..<0
    var landing: Range<Int> = 0..<0
    /// Prefetch rows past the visible range in the direction of travel.
    var ahead: Range<Int> = 0..<0

    /// Work for rows outside these ranges is cancelled.
    var wantedRanges: [Range<Int>] {
        guard let visible else { return [] }
        return [visible, landing, ahead].filter { !$0.isEmpty }
    }

    func wants(_ row: Int) -> Bool {
        guard let visible else { return true }
        return visible.contains(row) || landing.contains(row) || ahead.contains(row)
    }

    /// Whether a waiting job for `row` is held back by the motion (its request
    /// answers DEFERRED) rather than waiting for a free slot.
    func holds(_ row: Int) -> Bool {
        switch motion {
        case .settled: return false
        case .flying: return true
        case .landing: return !landing.contains(row)
        }
    }

    /// How urgent work for `row` is; smaller runs first: visible rows from the top,
    /// then the landing zone from its resting rows out, then ahead nearest first,
    /// then anything else by distance.
    func rank(of row: Int) -> Int {
        guard let visible else { return 0 }
        let tier: Int, distance: Int
        if visible.contains(row) {
            (tier, distance) = (0, row - visible.lowerBound)
        } else if landing.contains(row) {
            (tier, distance) = (1, Self.distance(row, rest))
        } else if ahead.contains(row) {
            (tier, distance) = (2, Self.distance(row, visible))
        } else {
            (tier, distance) = (3, Self.distance(row, visible))
        }
        return tier << 40 | min(distance, 1 << 39)
    }

    /// One query of the start order: the first (or last) row still to start in `rows`.
    struct Query: Equatable {
        let rows: Range<Int>
        let ascending: Bool
        /// Prefetch in the narrow sense, which the waste budget may stop.
        let isPrefetch: Bool
    }

    /// Where to look for the next row to start, most urgent first. Rows are started
    /// in the direction of travel from the edge the list approaches, so the first
    /// images to show are the first to arrive.
    var startOrder: [Query] {
        guard let visible else { return [] }
        let forward = direction == .forward
        switch motion {
        case .flying:
            return []
        case .landing:
            return [Query(rows: visible.clamped(to: landing), ascending: true, isPrefetch: false),
                    Query(rows: rest, ascending: true, isPrefetch: false),
                    Query(rows: landing, ascending: forward, isPrefetch: false)]
        case .settled:
            return [Query(rows: visible, ascending: true, isPrefetch: false),
                    Query(rows: rest, ascending: true, isPrefetch: false),
                    Query(rows: landing, ascending: forward, isPrefetch: false),
                    Query(rows: ahead, ascending: forward, isPrefetch: true)]
        }
    }

    private static func distance(_ row: Int, _ range: Range<Int>) -> Int {
        if row < range.lowerBound { return range.lowerBound - row }
        if row >= range.upperBound { return row - range.upperBound + 1 }
        return 0
    }
}
