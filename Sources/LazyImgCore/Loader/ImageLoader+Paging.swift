/// Paged lists: the loader tells the host when the list nears its last row, so the
/// next page is fetched before the user gets there.
extension ImageLoader {
    /// Asks for a page (one `.needPage` event) when the list reaches within
    /// `distanceRows` of its end, while `hasMore`. Re-arms: after a failed page the
    /// host calls this again; `hasMore = false` stops the events.
    public func setPaging(distanceRows: Int, hasMore: Bool) throws(LoaderError) {
        try state.withLock { s throws(LoaderError) in
            guard !s.isShuttingDown else { throw .shutdown }
            s.paging.configure(distanceRows: max(0, distanceRows), hasMore: hasMore)
            _askForPageIfNearEnd(in: &s)
        }
    }

    /// The furthest row (exclusive) the list is known to reach: the end of the visible
    /// range, or of a fling's landing zone or the host's target when that lies further,
    /// so a fling heading for the end asks before it gets there. (The target counts
    /// before its rows are due to start: one page asked early costs little and is
    /// slow to come.)
    func _pagingReach(in s: LoaderState) -> Int? {
        guard let visible = s.window.visible else { return nil }
        return max(visible.upperBound, s.window.landing.upperBound, s.view.target?.upperBound ?? 0)
    }

    /// Queues the one NEED_PAGE event of this approach (ticket 0, row = the row count).
    /// Runs after every change to the list or the view.
    func _askForPageIfNearEnd(in s: inout LoaderState) {
        guard !s.isShuttingDown, let reach = _pagingReach(in: s),
              s.paging.shouldAsk(reach: reach, itemCount: s.rows.count)
        else { return }
        delivery.push(LoaderEvent(ticket: 0, row: s.rows.count, url: ImageURL(""), outcome: .needPage, httpStatus: 0))
    }
}
