/// The scheduling policy: which jobs run, which wait, which are cancelled.
/// Every method here runs with the state lock held (the `_` prefix says so).
extension ImageLoader {
    /// The most rows the prefetcher looks at per change, however large the screen.
    static let maxPrefetchScan = 512

    /// After any change to the list, the visible range or the scroll state: cancel
    /// what is no longer wanted, then (when idle) add prefetch work and start jobs.
    func _viewDidChange(in s: inout LoaderState) {
        let view = s.view
        for (id, ticket) in s.tickets where !view.wants(ticket.row) {
            _cancelTicket(id, in: &s)
        }
        // A prefetch claim lapses when its row left the window or now shows another
        // URL (a new list); the prefetcher renews the claims it still wants.
        for (key, job) in s.jobs {
            if let row = job.prefetchRow, !view.wants(row) || row >= s.rows.count || s.rows[row] != key {
                s.jobs[key]?.prefetchRow = nil
            }
        }
        _addPrefetchJobs(in: &s)
        for (key, job) in s.jobs where !job.isWanted {
            _dropJob(key, in: &s)
        }
        _pump(in: &s)
    }

    /// When idle: make sure the visible rows and the prefetch window have jobs, so
    /// images arrive before the host asks.
    func _addPrefetchJobs(in s: inout LoaderState) {
        guard !s.view.scroll.isMoving, let visible = s.view.visible else { return }
        let now = clock.nowMilliseconds
        var scanned = 0
        for window in [visible, s.view.prefetchWindow] {
            for row in window.clamped(to: 0..<s.rows.count) {
                guard scanned < Self.maxPrefetchScan else { return }
                scanned += 1
                guard let key = s.rows[row] else { continue }
                if s.jobs[key] != nil {
                    if s.jobs[key]?.prefetchRow == nil { s.jobs[key]?.prefetchRow = row }
                    continue
                }
                guard s.cache.peek(key) == nil, URLCheck.isLoadable(key.url),
                      s.failures.recentFailure(of: key.url, now: now) == nil
                else { continue }
                var job = Job(id: s.makeID(), key: key)
                job.prefetchRow = row
                s.jobs[key] = job
            }
        }
    }

    /// Starts waiting jobs, most urgent first, while download slots are free and the
    /// list is not moving.
    func _pump(in s: inout LoaderState) {
        guard !s.isShuttingDown, !s.view.scroll.isMoving else { return }
        _startDiskReads(in: &s)
        while s.downloading < configuration.maxConcurrentDownloads {
            var best: (rank: Int, id: UInt64, key: CacheKey)?
            for (key, job) in s.jobs where job.phase == .waiting {
                let rank = job.rank(in: s.view)
                if let current = best, (current.rank, current.id) <= (rank, job.id) { continue }
                best = (rank, job.id, key)
            }
            guard let next = best else { return }
            _startDownload(next.key, in: &s)
        }
    }

    private func _startDownload(_ key: CacheKey, in s: inout LoaderState) {
        let id = s.makeID()
        s.jobs[key]?.phase = .downloading(id)
        s.jobByTransfer[id] = key
        s.downloading += 1
        s.stats.downloadsStarted += 1
        let request = DataRequest(
            url: key.url,
            timeoutMilliseconds: configuration.timeoutMilliseconds,
            maxResponseBytes: configuration.maxResponseBytes,
            userAgent: configuration.userAgent,
            headers: configuration.httpHeaders + (s.jobs[key]?.staleCopy?.metadata.validatorHeaders ?? []))
        transport.start(id, request) { [weak self] id, response in
            self?.transferDidComplete(id, response)
        }
    }

    /// Ends a live ticket with CANCELLED and lets go of its job if nothing else wants it.
    func _cancelTicket(_ id: UInt64, in s: inout LoaderState) {
        guard let ticket = s.tickets[id] else { return }
        _finish(id, .failed(.cancelled), httpStatus: 0, in: &s)
        s.jobs[ticket.key]?.tickets[id] = nil
        if let job = s.jobs[ticket.key], !job.isWanted {
            _dropJob(ticket.key, in: &s)
        }
    }

    /// Forgets a job, stopping its download. A decode already running finishes and
    /// only fills the cache.
    func _dropJob(_ key: CacheKey, in s: inout LoaderState) {
        guard let job = s.jobs.removeValue(forKey: key) else { return }
        if case .downloading(let transfer) = job.phase {
            s.jobByTransfer[transfer] = nil
            s.downloading -= 1
            s.stats.downloadsCancelled += 1
            transport.cancel(transfer)
        }
    }

    /// Queues the one event of ticket `id` and retires the ticket.
    func _finish(_ id: UInt64, _ outcome: LoaderEvent.Outcome, httpStatus: Int, message: String = "",
                 in s: inout LoaderState) {
        guard let ticket = s.tickets.removeValue(forKey: id) else { return }
        delivery.push(LoaderEvent(ticket: id, row: ticket.row, url: ticket.key.url,
                                  outcome: outcome, httpStatus: httpStatus, message: message))
    }
}
