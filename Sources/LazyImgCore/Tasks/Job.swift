/// The work for one cache key: a download, then a decode. However many tickets
/// want the key, there is one job, hence one download per URL.
struct Job {
    enum Phase: Equatable {
        /// Not started: waiting for a free slot, or for the list to stop moving.
        case waiting
        case downloading(TransferID)
        case decoding
        /// Looking in the disk cache, before any download.
        case readingDisk
    }

    /// Unique per loader, so a late decode result is matched to the job that asked.
    let id: UInt64
    let key: CacheKey
    var phase: Phase = .waiting
    /// The tickets waiting for this job, with their rows.
    var tickets: [UInt64: Int] = [:]
    /// Set when the loader itself wants the image for a row it prefetches.
    var prefetchRow: Int?
    /// The disk cache is asked once, before the network.
    var diskChecked = false
    /// A stale copy found on disk: the download revalidates it, and it answers when
    /// the network fails.
    var staleCopy: DiskCache.Entry?

    init(id: UInt64, key: CacheKey) {
        self.id = id
        self.key = key
    }

    /// Whether a ticket or the prefetcher still wants the result.
    var isWanted: Bool { !tickets.isEmpty || prefetchRow != nil }

    /// The urgency of the most urgent row this job serves; smaller runs first.
    func rank(in view: ViewState) -> Int {
        var best = prefetchRow.map(view.rank(of:)) ?? Int.max
        for row in tickets.values { best = min(best, view.rank(of: row)) }
        return best
    }
}

/// A ticket handed to the host: one row waiting for one job.
struct Ticket {
    let row: Int
    let key: CacheKey
}
