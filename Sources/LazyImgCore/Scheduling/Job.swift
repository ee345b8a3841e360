/// The work for one cache key: a download, then a decode. However many tickets
/// want the key, there is one job, hence one download per URL.
struct Job {
    enum Phase: Equatable {
        /// Not started: waiting for a free slot, or for the list to slow down.
        case waiting
        case downloading(TransferID)
        /// Queued for a worker, or decoding; `DecodeClaim` tells the worker whether
        /// it is still wanted.
        case decoding(DecodeClaim)
        /// Looking in the disk cache, before any download.
        case readingDisk
    }

    /// Unique per loader, so a late decode result is matched to the job that asked.
    let id: UInt64
    let key: CacheKey
    var phase: Phase = .waiting
    /// The tickets waiting for this job, with their rows.
    var tickets = JobTickets()
    /// Set while the loader itself wants the image for a row of its window.
    var prefetchRow: Int?
    /// The row the download was started for: where an unasked-for image belongs.
    var startRow: Int?
    /// When its latest download started, on the loader's clock (`DownloadDurations`).
    var downloadStartedAt: Int64?
    /// Nothing wants it any more, but its download was nearly done: it finishes
    /// into the cache.
    var finishesUnwanted = false
    /// Downloads retried after a transient failure, and the clock time before which
    /// the next attempt may not start.
    var retries = 0
    var notBefore: Int64 = .min
    /// The disk cache is asked once, before the network.
    var diskChecked = false
    /// A stale copy found on disk: the download revalidates it, and it answers when
    /// the network fails.
    var staleCopy: DiskCache.Entry?
    /// Its download's previews so far (`Scheduler+Previews`).
    var previews = PreviewThrottle()

    init(id: UInt64, key: CacheKey) {
        self.id = id
        self.key = key
    }

    /// Whether a waiting job may start at `now`: its retry wait is over and its host
    /// is not backing off.
    func mayStart(now: Int64, hosts: HostBackoff) -> Bool {
        notBefore <= now && hosts.pausedUntil(key.url, now: now) == nil
    }

    /// Whether a ticket or the prefetcher still wants the result.
    var isWanted: Bool { !tickets.isEmpty || prefetchRow != nil }

    var isDecoding: Bool {
        if case .decoding = phase { return true }
        return false
    }

    /// The urgency of the most urgent row this job serves; smaller runs first.
    func rank(in window: SchedulingWindow) -> Int {
        var best = prefetchRow.map(window.rank(of:)) ?? Int.max
        for row in tickets.rows { best = min(best, window.rank(of: row)) }
        return best
    }
}

/// A ticket handed to the host: one row waiting for one job.
struct Ticket {
    let row: Int
    let key: CacheKey
}
