/// Everything a loader knows, guarded as one by the loader's mutex.
struct LoaderState {
    /// One key per row (nil: no image), made once when the rows arrive.
    var rows: [CacheKey?] = []
    var cache: MemoryCache
    var view: ViewState
    var failures: FailureRecords
    /// Live tickets: a ticket leaves this table exactly when its one event is queued.
    var tickets: [UInt64: Ticket] = [:]
    var jobs: [CacheKey: Job] = [:]
    var jobByTransfer: [TransferID: CacheKey] = [:]
    /// One counter for tickets, jobs and transfers: never 0, never reused.
    var lastID: UInt64 = 0
    var downloading = 0
    var stats = LoaderStats()
    var isShuttingDown = false
    var paging = PagingTrigger()
    var fetches = DataFetches()

    init(configuration: LoaderConfiguration) {
        cache = MemoryCache(capacity: configuration.memoryCacheBytes)
        view = ViewState(prefetchRows: configuration.prefetchRows)
        failures = FailureRecords(retryAfterMilliseconds: Int64(configuration.retryAfterMilliseconds))
    }

    mutating func makeID() -> UInt64 {
        lastID += 1
        return lastID
    }
}
