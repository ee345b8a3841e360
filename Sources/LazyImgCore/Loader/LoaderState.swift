/// Everything a loader knows, guarded as one by the loader's mutex.
struct LoaderState {
    /// One key per row (nil: no image), made once when the rows arrive.
    var rows = RowKeys()
    var cache: MemoryCache
    var animations = AnimationPlayers()
    var view: ViewState
    /// The windows derived from `view` at its last change.
    var window = SchedulingWindow()
    /// Rows of the window (and requested rows) that may still need a download; the
    /// pump asks it for the most urgent one and drops rows that need nothing.
    var toStart = RowSet()
    /// Requests the window does not rank, in the order they came.
    var arrivals = ArrivalQueue()
    /// Rows that may have work to end when they leave the window: a ticket, a
    /// prefetch claim or an unseen prefetched image (stale rows are dropped when
    /// looked at).
    var claimed = RowSet()
    /// Tickets asked for rows outside the window, checked at the next view change.
    var strays: [UInt64] = []
    var prefetch: PrefetchLedger
    var starts = StartRateLimiter()
    var failures: FailureRecords
    var hostBackoff: HostBackoff
    /// Live tickets: a ticket leaves this table exactly when its one event is queued.
    var tickets: [UInt64: Ticket] = [:]
    var jobs: [CacheKey: Job] = [:]
    var jobByTransfer: [TransferID: CacheKey] = [:]
    /// One counter for tickets, jobs and transfers: never 0, never reused.
    var lastID: UInt64 = 0
    var downloading = 0
    /// `downloading` per host, and the jobs waiting for their host to free a slot.
    var hostSlots = HostSlots()
    var stats = LoaderStats()
    var isShuttingDown = false
    var paging = PagingTrigger()
    var fetches = DataFetches()

    init(configuration: LoaderConfiguration) {
        cache = MemoryCache(capacity: configuration.memoryCacheBytes)
        view = ViewState(prefetchRows: configuration.prefetchRows,
                         slowRowsPerSecond: configuration.slowScrollRowsPerSecond)
        prefetch = PrefetchLedger(budgetBytes: configuration.prefetchWasteBytes)
        hostBackoff = configuration.hostBackoff
        failures = FailureRecords(retryAfterMilliseconds: Int64(configuration.retryAfterMilliseconds))
    }

    /// The key of `row` for a host call.
    func key(forRow row: Int) throws(LoaderError) -> CacheKey {
        guard !isShuttingDown else { throw .shutdown }
        guard row >= 0, row < rows.count else { throw .outOfRange }
        guard let key = rows[row] else { throw .noImage }
        return key
    }

    /// The memory hit of `request` and `lookup`: the cached image of `row`, or nil.
    /// Mutating (it also marks the image recently used) and so working on the locked
    /// state in place: a non-mutating call copied all of it first. Tries the slot the
    /// row's image was last found in before hashing its key.
    @inline(__always)
    mutating func cachedImage(forRow row: Int) throws(LoaderError) -> DecodedImage? {
        guard !isShuttingDown else { throw .shutdown }
        guard row >= 0, row < rows.count else { throw .outOfRange }
        if let image = cache.image(at: rows.rememberedSlot(ofRow: row)) { return image }
        guard let slot = try rows.findSlot(ofRow: row, in: cache) else { return nil }
        return cache.image(at: slot)
    }

    /// Runs `body` on the job of `key` where it lies in the table; nil without one.
    /// `jobs[key]?.field = x` moves the whole job out of the table and back (and
    /// `jobs[key]` copies it, retaining every field): in callgrind that was a
    /// quarter of a fast frame. The values view at the key's index is mutated in place.
    @discardableResult
    mutating func withJob<R>(_ key: CacheKey, _ body: (inout Job) -> R) -> R? {
        guard let index = jobs.index(forKey: key) else { return nil }
        return body(&jobs.values[index])
    }

    /// The keys of the rows on screen (none known before the host said which), and of
    /// the animations playing.
    var keysOnScreen: Set<CacheKey> {
        var keys = animations.playing
        for row in (window.visible ?? 0..<0).clamped(to: 0..<rows.count) {
            if let key = rows[row] { keys.insert(key) }
        }
        return keys
    }

    mutating func makeID() -> UInt64 {
        lastID += 1
        return lastID
    }
}
