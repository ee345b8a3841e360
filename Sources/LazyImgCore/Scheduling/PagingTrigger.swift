/// When a paged list asks the host for its next page: once the list reaches within
/// `distanceRows` of its last row while more pages exist, and then not again until
/// the list grows (the page arrived) or the host re-arms it (the page failed).
/// Asking once per approach keeps a list that sits near its end, redrawn 60 times
/// a second, from fetching the same page over and over.
struct PagingTrigger {
    private(set) var distanceRows = 0
    private(set) var hasMore = false
    /// Cleared when the list asks; set again by `rearm` and by a growing list.
    private(set) var isArmed = false

    /// The host's settings; re-arms, so a failed page can be asked for again.
    mutating func configure(distanceRows: Int, hasMore: Bool) {
        self.distanceRows = distanceRows
        self.hasMore = hasMore
        isArmed = true
    }

    /// The next page arrived (or the list was replaced): the next approach asks again.
    mutating func listDidGrow() {
        isArmed = true
    }

    /// Whether to ask now, given the furthest row the list reaches (exclusive), and
    /// disarms when it does.
    mutating func shouldAsk(reach: Int, itemCount: Int) -> Bool {
        guard hasMore, isArmed, reach.addingClamped(distanceRows) >= itemCount else { return false }
        isArmed = false
        return true
    }
}
