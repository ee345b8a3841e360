/// How the scheduler follows the view: rows that leave the window end their work,
/// rows that enter it go to the pump, and a paged list asks for its next page.
///
/// The view is a small model (`ViewState` -> `SchedulingWindow`); a change in it is
/// handled by comparing the new window with the last one, so a change touches only
/// the rows that entered or left it. Rows that entered go into `toStart`, the
/// priority structure the pump asks for the most urgent row in each range of the
/// start order; of the rows that left, only those in `claimed` (rows with a ticket,
/// a prefetch claim or an unseen prefetched image) are looked at. Jobs themselves
/// change only through `Scheduler.swift`.
extension Scheduler {
    /// After a change to the visible range, the scroll state or the target: cancel
    /// work for rows that left the window, note the rows that entered, start jobs.
    func viewDidChange() {
        let old = window
        let new = view.window()
        window = new
        askForPageIfNearEnd()
        guard old != new else {
            // At rest, a view that did not change has nothing new to start: whatever
            // frees a slot or makes a job startable (a completion, a decode, a cancel,
            // a retry's timer, a memory hit that frees prefetch budget) pumps where it
            // happens, and only a moving list paces its starts by the clock.
            if view.scroll != .idle { pump() }
            return
        }
        if old.visible == nil && new.visible != nil {
            // The first geometry: every ticket so far is checked once; what survives
            // is in the window, hence in `toStart`, so the arrival order is done with.
            releaseUnwanted(inJobs: Array(jobs.keys))
            arrivals = ArrivalQueue()
            reclaimRows()
        } else {
            old.forEachRun(notIn: new) { left in
                var from = left.lowerBound
                while let row = claimed.first(in: from..<left.upperBound) {
                    claimed.remove(row)
                    rowLeft(row)
                    from = row + 1
                }
            }
        }
        releaseStrays()
        new.forEachRun(notIn: old) { entered in toStart.insert(entered) }
        pump()
    }

    /// Tickets for rows the window did not want when they were asked for never
    /// leave it: each view change ends those it still does not want.
    private func releaseStrays() {
        guard !strays.isEmpty else { return }
        for id in strays {
            guard let ticket = tickets[id] else { continue }
            if window.wants(ticket.row) {
                claimed.insert(ticket.row)
                toStart.insert(ticket.row)
            } else {
                cancelTicket(id)
            }
        }
        strays.removeAll()
    }

    /// Rebuilds `claimed` from the jobs and the ledger, after a change that walked
    /// all of them anyway.
    private func reclaimRows() {
        claimed.removeAll()
        for job in jobs.values {
            for row in job.tickets.rows { claimed.insert(row) }
            if let row = job.prefetchRow { claimed.insert(row) }
        }
        for row in prefetch.rows { claimed.insert(row) }
    }

    /// The list changed under the view: claims and queues are rebuilt from the new
    /// rows (a rare call, so it may walk the window).
    func listDidChange() {
        view.rowCount = rows.count
        window = view.window()
        askForPageIfNearEnd()
        for key in Array(jobs.keys) { withJob(key) { $0.prefetchRow = nil } }
        toStart.removeAll()
        for range in window.wantedRanges {
            toStart.insert(range)
            // A download already running for a URL the new list shows here keeps going.
            for row in range {
                if let key = rows[row] { withJob(key) { job in if job.prefetchRow == nil { job.prefetchRow = row } } }
            }
        }
        releaseUnwanted(inJobs: Array(jobs.keys))
        reclaimRows()
        pump()
    }

    /// `row` is no longer wanted: end its tickets, drop the prefetcher's claim, and
    /// count a prefetched image never shown as waste.
    private func rowLeft(_ row: Int) {
        guard row < rows.count, let key = rows[row] else { return }
        if !prefetch.isEmpty, let bytes = prefetch.abandon(key, row: row) {
            stats.prefetchWasted += 1
            stats.prefetchWasteBytes = stats.prefetchWasteBytes.addingClamped(bytes)
        }
        guard let tickets = withJob(key, { $0.tickets }) else { return }
        for (id, ticketRow) in tickets where ticketRow == row { cancelTicket(id) }
        let wasClaim = withJob(key) { job in
            guard job.prefetchRow == row else { return false }
            job.prefetchRow = nil
            return true
        }
        if wasClaim == true { releaseIfUnwanted(key) }
    }

    /// The same when there is no previous window to compare with (the first visible
    /// range, a new list): walks the jobs and the ledger instead of rows.
    private func releaseUnwanted(inJobs keys: [CacheKey]) {
        let window = window
        for key in keys {
            guard let job = jobs[key] else { continue }
            for (id, row) in job.tickets where !window.wants(row) { cancelTicket(id) }
            withJob(key) { job in
                if let row = job.prefetchRow, !window.wants(row) { job.prefetchRow = nil }
            }
            releaseIfUnwanted(key)
        }
        let wasted = prefetch.abandonAll { !window.wants($0) }
        stats.prefetchWasted += UInt64(wasted.count)
        stats.prefetchWasteBytes = stats.prefetchWasteBytes.addingClamped(wasted.bytes)
    }

    // MARK: Paging

    /// The furthest row (exclusive) the list is known to reach: the end of the visible
    /// range, or of a fling's landing zone or the host's target when that lies further,
    /// so a fling heading for the end asks before it gets there. (The target counts
    /// before its rows are due to start: one page asked early costs little and is
    /// slow to come.)
    private var pagingReach: Int? {
        guard let visible = window.visible else { return nil }
        return max(visible.upperBound, window.landing.upperBound, view.target?.upperBound ?? 0)
    }

    /// Queues the one NEED_PAGE event of this approach (ticket 0, row = the row count).
    /// Runs after every change to the list or the view.
    func askForPageIfNearEnd() {
        guard !isShuttingDown, let reach = pagingReach, paging.shouldAsk(reach: reach, itemCount: rows.count)
        else { return }
        effects.append(.event(LoaderEvent(ticket: 0, row: rows.count, url: ImageURL(""), outcome: .needPage,
                                          httpStatus: 0)))
    }
}
