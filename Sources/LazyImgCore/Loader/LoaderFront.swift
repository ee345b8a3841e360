/// What the host's calls answer from at once: the rows, the memory cache, the live
/// tickets and the recent failures. Guarded by the loader's front lock, which other
/// threads take only for short bounded sections (the scheduler's thread to cache an
/// image, retire a ticket or record a failure; a session evicting one image): the
/// scheduling itself happens on the scheduler's thread, under no lock the host's
/// calls take.
struct LoaderFront {
    // What a request reads comes first, in this order: `Locked` starts the state on
    // its mutex's line, so the flags, the rows' entries and the live tickets lie on
    // the line the lock is taken on and the next; the cache and the animations,
    // which a miss does not read, come after.

    var isShuttingDown = false
    /// Whether file URLs may load (`LoaderConfiguration.allowFileURLs`), here beside
    /// what a miss reads anyway: the configuration is a line of its own.
    let allowFileURLs: Bool
    /// Set once any row has had a placeholder (`RowPlaceholders`): until then a miss
    /// does not look for one, nor touch the placeholders' object.
    var placeholdersInUse = false
    /// One key per row (nil: no image), made once when the rows arrive, each row
    /// knowing where its image is cached.
    var rows: RowKeys
    /// Tickets whose one event has not been queued yet: the host's cancel, a new list
    /// and shutdown end them here, the scheduler's decisions through `retire`.
    private var live = LiveTickets<LiveTicket>()
    /// The images the scheduler has cached so far (its `.cache` effects carried
    /// out): a request's miss says how many it saw (`Scheduler.imagesCached`).
    var imagesCached: UInt64 = 0
    var failures: FailureRecords
    /// The host-side counters: requests, memory hits and deferred requests.
    var stats = LoaderStats()
    var cache: MemoryCache
    var animations = AnimationPlayers()
    /// The visible rows as the scheduler last saw them (nil before the first range).
    var visible: Range<Int>?

    struct LiveTicket {
        let row: Int
        /// A data fetch's URL; nil for an image request, whose URL is its row's.
        /// A miss then never touches the URL's storage (a cold line of its own,
        /// whose count other threads change): the event reads it from the rows,
        /// which a new list replaces only after ending the old list's tickets.
        let fetchURL: ImageURL?

        var isFetch: Bool { fetchURL != nil }
    }

    /// The CANCELLED event of `live`, ticket `ticket`, for the rows it was opened on.
    func cancelledEvent(of live: LiveTicket, _ ticket: UInt64) -> LoaderEvent {
        let url = live.fetchURL ?? (live.row < rows.count ? rows[live.row]?.url : nil) ?? ImageURL("")
        return LoaderEvent(ticket: ticket, row: live.row, url: url, outcome: .failed(.cancelled), httpStatus: 0)
    }

    init(configuration: LoaderConfiguration) {
        cache = MemoryCache(capacity: configuration.memoryCacheBytes)
        rows = RowKeys([])
        failures = FailureRecords(retryAfterMilliseconds: Int64(configuration.retryAfterMilliseconds))
        allowFileURLs = configuration.allowFileURLs
    }

    /// What every host call about a row checks first: the loader runs, the row is
    /// in the list.
    @inline(__always)
    func checkRow(_ row: Int) throws(LoaderError) {
        guard !isShuttingDown else { throw .shutdown }
        guard row >= 0, row < rows.count else { throw .outOfRange }
    }

    /// The key of `row` for a host call.
    func key(forRow row: Int) throws(LoaderError) -> CacheKey {
        try checkRow(row)
        guard let key = rows[row] else { throw .noImage }
        return key
    }

    /// Whether `row`'s URL may be loaded by this loader, for a request that missed.
    func isLoadable(row: Int) throws(LoaderError) -> Bool {
        try checkRow(row)
        guard let loadable = rows.isLoadable(row: row, allowingFiles: allowFileURLs) else { throw .noImage }
        return loadable
    }

    /// The memory hit of `request` and `lookup`: the cached image of `row`, or nil.
    /// Mutating (it also marks the image recently used) and so working on the locked
    /// state in place: a non-mutating call copied all of it first. The row knows its
    /// image's slot (`RowKeys`): no key is hashed or compared.
    @inline(__always)
    mutating func cachedImage(forRow row: Int) throws(LoaderError) -> DecodedImage? {
        try checkRow(row)
        if let image = cache.image(at: rows.slot(ofRow: row)) { return image }
        guard rows.hasImage(row: row) else { throw .noImage }
        return nil
    }

    /// A request answered from memory; the key of the image when it is one the loader
    /// fetched unasked and this is its first showing.
    @inline(__always)
    mutating func countMemoryHit(row: Int) -> CacheKey? {
        stats.requests += 1
        stats.memoryHits += 1
        guard cache.takeUnseenPrefetch(at: rows.slot(ofRow: row)) else { return nil }
        return rows[row]
    }

    /// A new live ticket for `row`'s image.
    mutating func openTicket(row: Int) -> UInt64 {
        live.open(LiveTicket(row: row, fetchURL: nil))
    }

    /// A new live ticket for a fetch of `url`.
    mutating func openFetchTicket(url: ImageURL) -> UInt64 {
        live.open(LiveTicket(row: 0, fetchURL: url))
    }

    /// Whether ticket `id` is live: its event is not decided yet.
    func isLive(_ id: UInt64) -> Bool {
        live.contains(id)
    }

    /// Ends the live ticket `id`, returning it; nil when its event was decided already.
    mutating func retire(_ id: UInt64) -> LiveTicket? {
        live.retire(id)
    }

    /// Ends every live ticket that `include` selects, returning their CANCELLED
    /// events: image tickets first, each kind oldest first.
    mutating func cancelAll(where include: (LiveTicket) -> Bool) -> [LoaderEvent] {
        let ended = live.retireAll(where: include)
        return (ended.filter { !$0.ticket.isFetch } + ended.filter(\.ticket.isFetch)).map { cancelledEvent(of: $0.ticket, $0.number) }
    }
}
