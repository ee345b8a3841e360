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
    /// Visible rows not started although wanted: those a list still decelerating
    /// toward the host's target, already slower than the slow-scroll speed,
    /// leaves within the landing lead time, outside the landing zone on the side
    /// it comes from (a download begun for the row at the trailing edge ends after
    /// the row has gone). A request for one waits, and starts if the list rests
    /// short. Empty, or at one end of `visible`.
    var passing: Range<Int> = 0..<0

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
        var isPrefetch = false
        /// Starts paced while the list moves (see `StartRateLimiter`): all but the
        /// rows where the list will rest, which a fling has only one chance to load.
        var isPaced = true
    }

    /// The `index`th place to look for the next row to start, most urgent first;
    /// nil past the last. Rows are started in the direction of travel from the edge
    /// the list approaches, so the first images to show are the first to arrive.
    /// (Indexed rather than an array: the pump runs on every call, and an array
    /// would be allocated each time.)
    func query(at index: Int) -> Query? {
        guard let visible else { return nil }
        let forward = direction == .forward
        switch (motion, index) {
        case (.landing, 0): return Query(rows: visible.clamped(to: landing), ascending: true)
        case (.landing, 1), (.settled, 1): return Query(rows: rest, ascending: true, isPaced: false)
        case (.landing, 2), (.settled, 2): return Query(rows: landing, ascending: forward)
        case (.settled, 0): return Query(rows: staying(visible), ascending: true)
        case (.settled, 3): return Query(rows: ahead, ascending: forward, isPrefetch: true)
        default: return nil
        }
    }

    /// `visible` less the rows `passing` holds back.
    private func staying(_ visible: Range<Int>) -> Range<Int> {
        guard !passing.isEmpty else { return visible }
        return passing.lowerBound == visible.lowerBound
            ? passing.upperBound..<max(passing.upperBound, visible.upperBound)
            : visible.lowerBound..<min(passing.lowerBound, visible.upperBound)
    }

    /// Whether `row` lies in one of the wanted ranges (false before the first
    /// visible range, when there are none).
    private func covers(_ row: Int) -> Bool {
        guard let visible else { return false }
        return visible.contains(row) || landing.contains(row) || ahead.contains(row)
    }

    /// Calls `body` with each run of rows this window wants and `other` does not,
    /// in ascending order: with `other` the previous window, the rows that entered;
    /// the other way round, the rows that left. Sweeps the at most twelve range
    /// ends in a stack buffer, as this runs on every frame.
    func forEachRun(notIn other: SchedulingWindow, _ body: (Range<Int>) -> Void) {
        guard let visible else { return }
        withUnsafeTemporaryAllocation(of: Int.self, capacity: 12) { ends in
            var count = 0
            func add(_ range: Range<Int>) {
                guard !range.isEmpty else { return }
                ends[count] = range.lowerBound
                ends[count + 1] = range.upperBound
                count += 2
            }
            add(visible)
            add(landing)
            add(ahead)
            if let otherVisible = other.visible {
                add(otherVisible)
                add(other.landing)
                add(other.ahead)
            }
            // Insertion sort: twelve values at most.
            for i in 1..<max(1, count) {
                var j = i
                while j > 0 && ends[j - 1] > ends[j] {
                    ends.swapAt(j - 1, j)
                    j -= 1
                }
            }
            var run: Range<Int>?
            for i in 0..<max(0, count - 1) where ends[i] < ends[i + 1] {
                // Between two consecutive ends, membership is the same for every row.
                if covers(ends[i]) && !other.covers(ends[i]) {
                    run = (run?.lowerBound ?? ends[i])..<ends[i + 1]
                } else if let done = run {
                    body(done)
                    run = nil
                }
            }
            if let run { body(run) }
        }
    }

    private static func distance(_ row: Int, _ range: Range<Int>) -> Int {
        if row < range.lowerBound { return range.lowerBound - row }
        if row >= range.upperBound { return row - range.upperBound + 1 }
        return 0
    }
}
