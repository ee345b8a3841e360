/// The scheduling policy: which jobs run, which wait, which are cancelled.
/// Every method here runs with the state lock held (the `_` prefix says so).
///
/// The view is a small model (`ViewState` -> `SchedulingWindow`); a change in it is
/// handled by comparing the new window with the last one, so a frame touches only
/// the rows that entered or left it. Rows that entered go into `toStart`, the
/// priority structure the pump asks for the most urgent row in each range of the
/// start order; of the rows that left, only those in `claimed` (rows with a
/// ticket, a prefetch claim or an unseen prefetched image) are looked at.
extension ImageLoader {
    /// After a change to the visible range, the scroll state or the target: cancel
    /// work for rows that left the window, note the rows that entered, start jobs.
    func _viewDidChange(in s: inout LoaderState) {
        let old = s.window
        let new = s.view.window()
        s.window = new
        _askForPageIfNearEnd(in: &s)
        if old.visible != new.visible { _stopAnimationsThatLeft(in: &s) }
        guard old != new else {
            // At rest, a view that did not change has nothing new to start: whatever
            // frees a slot or makes a job startable (a completion, a decode, a cancel,
            // a retry's timer, a memory hit that frees prefetch budget) pumps where it
            // happens, and only a moving list paces its starts by the clock. An idle
            // frame's calls then cost a comparison instead of two walks of the
            // start order.
            if s.view.scroll != .idle { _pump(in: &s) }
            return
        }
        if old.visible == nil && new.visible != nil {
            // The first geometry: every ticket so far is checked once; what survives
            // is in the window, hence in `toStart`, so the arrival order is done with.
            _releaseUnwanted(inJobs: Array(s.jobs.keys), in: &s)
            s.arrivals = ArrivalQueue()
            _reclaimRows(in: &s)
        } else {
            old.forEachRun(notIn: new) { left in
                var from = left.lowerBound
                while let row = s.claimed.first(in: from..<left.upperBound) {
                    s.claimed.remove(row)
                    _rowLeft(row, in: &s)
                    from = row + 1
                }
            }
        }
        _releaseStrays(in: &s)
        new.forEachRun(notIn: old) { entered in s.toStart.insert(entered) }
        _pump(in: &s)
    }

    /// Tickets for rows the window did not want when they were asked for never
    /// leave it: each view change ends those it still does not want.
    private func _releaseStrays(in s: inout LoaderState) {
        guard !s.strays.isEmpty else { return }
        let window = s.window
        for id in s.strays {
            guard let ticket = s.tickets[id] else { continue }
            if window.wants(ticket.row) {
                s.claimed.insert(ticket.row)
                s.toStart.insert(ticket.row)
            } else {
                _cancelTicket(id, in: &s)
            }
        }
        s.strays.removeAll()
    }

    /// Rebuilds `claimed` from the jobs and the ledger, after a change that walked
    /// all of them anyway.
    private func _reclaimRows(in s: inout LoaderState) {
        s.claimed.removeAll()
        for job in s.jobs.values {
            for row in job.tickets.rows { s.claimed.insert(row) }
            if let row = job.prefetchRow { s.claimed.insert(row) }
        }
        for row in s.prefetch.rows { s.claimed.insert(row) }
    }

    /// The list changed under the view: claims and queues are rebuilt from the new
    /// rows (a rare call, so it may walk the window).
    func _listDidChange(in s: inout LoaderState) {
        s.view.rowCount = s.rows.count
        s.window = s.view.window()
        _askForPageIfNearEnd(in: &s)
        _stopAnimationsThatLeft(in: &s)
        for key in Array(s.jobs.keys) { s.jobs[key]?.prefetchRow = nil }
        s.toStart.removeAll()
        for range in s.window.wantedRanges {
            s.toStart.insert(range)
            // A download already running for a URL the new list shows here keeps going.
            for row in range {
                if let key = s.rows[row], let job = s.jobs[key], job.prefetchRow == nil { s.jobs[key]?.prefetchRow = row }
            }
        }
        _releaseUnwanted(inJobs: Array(s.jobs.keys), in: &s)
        _reclaimRows(in: &s)
        _pump(in: &s)
    }

    /// `row` is no longer wanted: end its tickets, drop the prefetcher's claim, and
    /// count a prefetched image never shown as waste.
    private func _rowLeft(_ row: Int, in s: inout LoaderState) {
        guard row < s.rows.count, let key = s.rows[row] else { return }
        if !s.prefetch.isEmpty, let bytes = s.prefetch.abandon(key, row: row) {
            s.stats.prefetchWasted += 1
            s.stats.prefetchWasteBytes = s.stats.prefetchWasteBytes.addingClamped(bytes)
        }
        guard let tickets = s.withJob(key, { $0.tickets }) else { return }
        for (id, ticketRow) in tickets where ticketRow == row { _cancelTicket(id, in: &s) }
        let wasClaim = s.withJob(key) { job in
            guard job.prefetchRow == row else { return false }
            job.prefetchRow = nil
            return true
        }
        if wasClaim == true { _releaseIfUnwanted(key, in: &s) }
    }

    /// The same when there is no previous window to compare with (the first visible
    /// range, a new list): walks the jobs and the ledger instead of rows.
    private func _releaseUnwanted(inJobs keys: [CacheKey], in s: inout LoaderState) {
        let window = s.window
        for key in keys {
            guard let job = s.jobs[key] else { continue }
            for (id, row) in job.tickets where !window.wants(row) { _cancelTicket(id, in: &s) }
            if let row = s.jobs[key]?.prefetchRow, !window.wants(row) { s.jobs[key]?.prefetchRow = nil }
            _releaseIfUnwanted(key, in: &s)
        }
        let wasted = s.prefetch.abandonAll { !window.wants($0) }
        s.stats.prefetchWasted += UInt64(wasted.count)
        s.stats.prefetchWasteBytes = s.stats.prefetchWasteBytes.addingClamped(wasted.bytes)
    }

    /// Starts the most urgent startable jobs while download slots are free, as far
    /// as the motion of the list and the start pacing allow.
    func _pump(in s: inout LoaderState) {
        _startFetches(in: &s)
        guard !s.isShuttingDown else { return }
        _startDiskReads(in: &s)
        let now = clock.nowMilliseconds
        let moving = s.view.scroll != .idle
        let screen = s.window.visible?.count ?? 0
        // Back-pressure (ImageLoader+DecodeQueue): none while running downloads and
        // files waiting to decode hold the budget, unless they hold nothing.
        let held = downloadBudget.heldBytes
        guard held == 0 || held < configuration.decodeQueueBytes else { return }
        while s.downloading < configuration.maxConcurrentDownloads {
            let mayPace = !moving
                || s.starts.mayStart(now: now, screen: screen, concurrency: configuration.maxConcurrentDownloads)
            guard let next = _nextToStart(now: now, includingPaced: mayPace, in: &s) else { return }
            // A job the prefetcher just made looks on disk first; that takes no slot.
            if diskCache != nil, s.jobs[next.key]?.diskChecked == false {
                _startDiskRead(next.key, in: &s)
                continue
            }
            // libcurl would queue it, holding a slot another host's row could use.
            if s.hostSlots.isFull(next.key.url, limit: configuration.maxHostConnections) {
                s.hostSlots.hold(next.key)
                continue
            }
            if moving && next.isPaced { s.starts.take() }
            _startDownload(next.key, row: next.row, in: &s)
        }
    }

    /// The most urgent row with work to start, its job made if the prefetcher is the
    /// first to want it. Rows found to need nothing leave `toStart` on the way.
    private func _nextToStart(now: Int64, includingPaced: Bool, in s: inout LoaderState)
        -> (key: CacheKey, row: Int?, isPaced: Bool)?
    {
        var index = 0
        while let query = s.window.query(at: index) {
            index += 1
            if query.isPrefetch && !s.prefetch.allowsPrefetch { continue }
            if query.isPaced && !includingPaced { continue }
            while let row = query.ascending ? s.toStart.first(in: query.rows) : s.toStart.last(in: query.rows) {
                s.toStart.remove(row)
                if let key = _startableKey(forRow: row, now: now, in: &s) { return (key, row, query.isPaced) }
            }
        }
        // Requests the geometry does not cover (before the first visible range, or for
        // rows outside the window), in the order they came.
        guard s.window.motion == .settled else { return nil }
        while let key = s.arrivals.popFirst() {
            // A job waiting out a retry or its host's pause leaves the queue; the retry
            // timer queues it again when it is due.
            if let job = s.jobs[key], job.phase == .waiting, job.mayStart(now: now, hosts: s.hostBackoff) {
                return (key, nil, true)
            }
        }
        return nil
    }

    private func _startableKey(forRow row: Int, now: Int64, in s: inout LoaderState) -> CacheKey? {
        guard row < s.rows.count, let key = s.rows[row] else { return nil }
        let hosts = s.hostBackoff
        let existing = s.withJob(key) { job -> (claimed: Bool, startable: Bool) in
            // Already downloading or decoding for a row that left (a download nearly
            // done, a decode not yet run): the row is back, so it is wanted again, and
            // its result goes to the cache instead of a second download.
            if job.phase != .waiting && !job.isWanted {
                job.prefetchRow = row
                return (true, false)
            }
            guard job.phase == .waiting, job.mayStart(now: now, hosts: hosts) else { return (false, false) }
            // A row in the window is the loader's to load, whoever asked first.
            guard job.prefetchRow == nil else { return (false, true) }
            job.prefetchRow = row
            return (true, true)
        }
        if let existing {
            if existing.claimed { s.claimed.insert(row) }
            return existing.startable ? key : nil
        }
        guard s.cache.peek(key) == nil, key.isLoadable(allowingFiles: configuration.allowFileURLs),
              s.failures.recentFailure(of: key.url, now: now) == nil,
              s.hostBackoff.pausedUntil(key.url, now: now) == nil
        else { return nil }
        var job = Job(id: s.makeID(), key: key)
        job.prefetchRow = row
        s.jobs[key] = job
        s.claimed.insert(row)
        return key
    }

    private func _startDownload(_ key: CacheKey, row: Int?, in s: inout LoaderState) {
        let id = s.makeID()
        let validators = s.withJob(key) { job in
            job.phase = .downloading(id)
            job.startRow = row ?? job.tickets.anyRow
            return job.staleCopy?.metadata.validatorHeaders
        } ?? nil
        s.jobByTransfer[id] = key
        s.downloading += 1
        s.hostSlots.didStart(key.url)
        s.stats.downloadsStarted += 1
        var request = configuration.imageRequest(for: key.url)
        request.memoryBudget = downloadBudget
        // A stale disk copy is revalidated: a 304 answers without a body.
        if let validators {
            request.validators = validators
            // The copy to revalidate is the whole file.
            request.dcScansBox = nil
        }
        if let reused = transport.startOrReuse(id, request, completion: transferCompletion) {
            // Another loader of the session downloaded it a moment ago: its response,
            // handed on like a completion, off this thread and this lock.
            let completion = transferCompletion
            decodePool.submit(priority: Int.min) { _ in completion(id, reused) }
        }
    }

    /// Ends a live ticket with CANCELLED and lets go of its job if nothing else wants it.
    func _cancelTicket(_ id: UInt64, in s: inout LoaderState) {
        guard let ticket = _finish(id, .failed(.cancelled), httpStatus: 0, in: &s) else { return }
        s.withJob(ticket.key) { $0.tickets[id] = nil }
        _releaseIfUnwanted(ticket.key, in: &s)
    }

    /// Drops a job nothing wants any more, unless its download is nearly done: that
    /// one finishes into the cache, as stopping it would waste what already came. A
    /// job whose download is done stays until its decode: a running one fills the
    /// cache, a queued one is skipped if still unwanted when its turn comes
    /// (`_claimDecode`); meanwhile a row that comes back joins it rather than
    /// downloading the URL again.
    func _releaseIfUnwanted(_ key: CacheKey, in s: inout LoaderState) {
        // Read in place: a copy of the job would retain all of its fields.
        let releasable = s.withJob(key) { job in
            !job.isWanted && !job.finishesUnwanted && job.phase != .decoding ? job.phase : nil
        }
        guard let phase = releasable ?? nil else { return }
        if case .downloading(let transfer) = phase, transport.progress(of: transfer)?.isNearlyDone == true {
            s.withJob(key) { $0.finishesUnwanted = true }
            return
        }
        _dropJob(key, in: &s)
    }

    /// Forgets a job, stopping its download. A decode already running finishes and
    /// only fills the cache; a queued one is skipped (ImageLoader+DecodeQueue).
    func _dropJob(_ key: CacheKey, in s: inout LoaderState) {
        guard let job = s.jobs.removeValue(forKey: key) else { return }
        if case .downloading(let transfer) = job.phase {
            s.jobByTransfer[transfer] = nil
            s.downloading -= 1
            s.stats.downloadsCancelled += 1
            // Resume hook: nothing wants the row now, but it may come back (a wrong
            // prediction), so the transport may keep what came and ask for the rest.
            transport.cancelKeepingBytes(transfer)
            _hostSlotFreed(key.url, in: &s)
        }
    }

    /// A download or fetch of `url` ended or stopped: the jobs its host held back go
    /// back to the pump.
    func _hostSlotFreed(_ url: ImageURL, in s: inout LoaderState) {
        for key in s.hostSlots.didEnd(url) {
            if let job = s.jobs[key], job.phase == .waiting { _requeue(job, in: &s) }
        }
    }

    /// Queues the one event of ticket `id` and retires the ticket, returning it (nil
    /// for a ticket no longer live).
    @discardableResult
    func _finish(_ id: UInt64, _ outcome: LoaderEvent.Outcome, httpStatus: Int, message: String = "",
                 in s: inout LoaderState) -> Ticket? {
        guard let ticket = s.tickets.removeValue(forKey: id) else { return nil }
        delivery.push(LoaderEvent(ticket: id, row: ticket.row, url: ticket.key.url,
                                  outcome: outcome, httpStatus: httpStatus, message: message))
        return ticket
    }
}
