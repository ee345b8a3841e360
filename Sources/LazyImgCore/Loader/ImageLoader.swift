import CLazyImgSupport
import Synchronization

/// The loader: one list, its view state, its caches and its workers.
///
/// Every method is safe from any thread and returns without waiting on I/O or
/// decoding, except `waitForEvents` and `shutdown`. State lives behind one mutex;
/// the network thread, decode threads and delivery never call the host with it held.
public final class ImageLoader: Sendable {
    public enum RequestResult: Sendable {
        /// In memory now.
        case image(DecodedImage)
        /// Scheduled or in flight; one event will follow for the ticket.
        case pending(UInt64)
        /// Held back while the list moves; one event will follow for the ticket.
        case deferred(UInt64)
    }

    public let configuration: LoaderConfiguration
    let state: Locked<LoaderState>
    let transport: any DataLoading
    let decodePool: DecodePool
    let delivery: EventDelivery
    let clock: any Clock
    /// A number in 0..<1 for each retry's jitter; fixed in tests.
    let jitter: @Sendable () -> Double
    /// Starts retries whose wait ends while the host makes no calls.
    let retryTimer: WakeTimer
    /// What every download's completion calls. Made once: a closure per start cost
    /// an allocation and a weak reference each, on the thread that started it (often
    /// the host's, with the lock held).
    let transferCompletion: @Sendable (TransferID, DataResponse) -> Void
    /// The view a list at rest set last, for the host's unchanged repeats of it.
    let restingView = RestingView()
    /// What running downloads and files waiting to decode may hold together.
    let downloadBudget: DownloadBudget

    /// nil unless the configuration names a directory (or a session with one).
    let diskCache: DiskCache?
    /// Animation frames decoded, counted by the decode jobs, which take no lock.
    let framesDecoded = Atomic<UInt64>(0)
    /// The rows' placeholder hashes and the images drawn from them.
    let placeholders: RowPlaceholders

    /// - Parameters:
    ///   - transport: fetches bytes; nil = the configuration's session, or without
    ///     one libcurl on a network thread of its own (and file:// on a reader
    ///     thread, when allowed).
    ///   - makeDecoder: makes one decoder per decode thread.
    ///   - jitter: a random number in 0..<1 per retry, spreading retries apart.
    ///   - onEvent: called once per finished ticket, never with a lock held.
    public init(
        configuration: LoaderConfiguration,
        transport: (any DataLoading)? = nil,
        makeDecoder: @escaping @Sendable () -> any ImageDecoding = { ImageDecoder() },
        clock: any Clock = MonotonicClock(),
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        onEvent: @escaping @Sendable (LoaderEvent) -> Void
    ) throws(LoaderError) {
        let diskCache: DiskCache?
        if let session = configuration.session {
            diskCache = session.diskCache
        } else if let directory = configuration.diskCacheDirectory {
            diskCache = try DiskCache(directory: directory, limit: configuration.diskCacheBytes)
        } else {
            diskCache = nil
        }
        guard let delivery = EventDelivery(mode: configuration.delivery, handler: onEvent) else { throw .io }
        guard let decodePool = DecodePool(threads: configuration.decodeThreads, makeDecoder: makeDecoder) else {
            delivery.finish()
            throw .io
        }
        guard let network = transport ?? configuration.session.flatMap({ session in
                    SchemeRoutingDataLoader(network: session.transfers.makeClient(),
                                            allowFileURLs: configuration.allowFileURLs)
                }) ?? SchemeRoutingDataLoader(configuration: configuration)
        else {
            decodePool.shutdown()
            delivery.finish()
            throw .network
        }
        guard let retryTimer = WakeTimer(name: "lazyimg-retry") else {
            network.shutdown()
            decodePool.shutdown()
            delivery.finish()
            throw .io
        }
        self.retryTimer = retryTimer
        let owner = WeakLoader()
        transferCompletion = { id, response in owner.loader?.transferDidComplete(id, response) }
        self.jitter = jitter
        self.configuration = configuration
        downloadBudget = DownloadBudget(limit: configuration.decodeQueueBytes)
        self.transport = network
        self.decodePool = decodePool
        self.delivery = delivery
        self.clock = clock
        self.diskCache = diskCache
        self.placeholders = RowPlaceholders(options: configuration.decodeOptions)
        self.state = Locked(LoaderState(configuration: configuration))
        owner.loader = self
        retryTimer.setHandler { [weak self] in self?.retryTimerDidFire() }
        joinSessionMemoryBudget()
        // Counting what the directory holds reads every shard: a worker's job, not
        // the creating thread's.
        if let diskCache { decodePool.submit(priority: Int.max) { _ in diskCache.loadIndex() } }
    }

    // MARK: The list

    /// Replaces the list. Outstanding tickets end cancelled; the cache stays.
    public func setItems(_ urls: [ImageURL?]) throws(LoaderError) {
        let rows = keys(for: urls)
        try state.withLock { s throws(LoaderError) in
            guard !s.isShuttingDown else { throw .shutdown }
            for id in Array(s.tickets.keys) { _cancelTicket(id, in: &s) }
            s.rows = RowKeys(rows)
            placeholders.listReplaced(rowCount: rows.count)
            s.paging.listDidGrow()
            _listDidChange(in: &s)
        }
    }

    /// Appends the next page of rows.
    public func appendItems(_ urls: [ImageURL?]) throws(LoaderError) {
        let rows = keys(for: urls)
        try state.withLock { s throws(LoaderError) in
            guard !s.isShuttingDown else { throw .shutdown }
            s.rows.append(contentsOf: rows)
            placeholders.listAppended(rows.count)
            s.view.rowCount = s.rows.count
            if !rows.isEmpty { s.paging.listDidGrow() }
            _viewDidChange(in: &s)
        }
    }

    public var itemCount: Int {
        state.withLock { $0.rows.count }
    }

    // MARK: View state

    /// Rows `first ..< first + count` are on screen. Work for rows outside the visible
    /// range, the landing zone and the prefetch window is cancelled.
    public func setVisibleRange(first: Int, count: Int) throws(LoaderError) {
        let lower = max(0, first)
        let rows = lower..<lower.addingClamped(max(0, count))
        // A list at rest repeats its range every frame: unchanged, without the lock.
        if restingView.isCurrent(under: state, rows: rows) { return }
        try state.withLock { s throws(LoaderError) in
            guard !s.isShuttingDown else { throw .shutdown }
            s.view.setVisible(rows)
            _viewDidChange(in: &s)
            _publishRestingView(in: &s)
        }
    }

    /// At rest or slower than the slow-scroll speed the list loads as at rest;
    /// faster, nothing new starts except the landing zone of a deceleration. Each
    /// call while decelerating is one velocity sample of the decay.
    public func setScrollState(_ scroll: ScrollState, velocity: Double) throws(LoaderError) {
        // A list at rest says so every frame: unchanged, without the lock.
        if scroll == .idle && velocity == 0 && restingView.isCurrent(under: state, rows: nil) { return }
        try state.withLock { s throws(LoaderError) in
            guard !s.isShuttingDown else { throw .shutdown }
            s.view.setScroll(scroll, velocity: velocity, now: clock.nowMilliseconds)
            _viewDidChange(in: &s)
            _publishRestingView(in: &s)
        }
    }

    /// After a state or range call: if the list now rests where a repeat of either
    /// changes nothing, the repeats skip the lock until anything else takes it.
    /// (State lock held.)
    private func _publishRestingView(in s: inout LoaderState) {
        restingView.publish(s.view.repeatsChangeNothing && !s.isShuttingDown ? s.view.visible : nil, under: state)
    }

    /// Rows `first ..< first + count` will be on screen when the list rests (the
    /// toolkit's own prediction); count 0 withdraws it. Void after the next touch,
    /// at rest, or when the list turns away.
    public func setScrollTarget(first: Int, count: Int) throws(LoaderError) {
        try state.withLock { s throws(LoaderError) in
            guard !s.isShuttingDown else { throw .shutdown }
            let lower = max(0, first)
            s.view.setTarget(lower..<lower.addingClamped(max(0, count)))
            _viewDidChange(in: &s)
        }
    }

    // MARK: Rows

    /// Image for `row`: from memory at once, else a ticket whose event follows.
    public func request(row: Int) throws(LoaderError) -> RequestResult {
        try state.withLock { s throws(LoaderError) -> RequestResult in
            if let image = try s.cachedImage(forRow: row) {
                _countMemoryHit(row: row, in: &s)
                return .image(image)
            }
            let key = try s.key(forRow: row)
            guard key.isLoadable(allowingFiles: configuration.allowFileURLs) else { throw .badURL }
            if let failure = s.failures.recentFailure(of: key.url, now: clock.nowMilliseconds) {
                throw failure.error
            }
            s.stats.requests += 1
            let ticket = s.makeID()
            s.tickets[ticket] = Ticket(row: row, key: key)
            let phase: Job.Phase
            if let joined = s.withJob(key, { job in
                job.tickets[ticket] = row
                return job.phase
            }) {
                s.stats.downloadsCoalesced += 1
                phase = joined
            } else {
                var job = Job(id: s.makeID(), key: key)
                job.tickets[ticket] = row
                s.jobs[key] = job
                phase = .waiting
            }
            if s.window.visible != nil { s.claimed.insert(row) }
            if phase == .waiting {
                if s.window.visible == nil {
                    s.arrivals.append(key)
                } else if s.window.wants(row) {
                    s.toStart.insert(row)
                } else {
                    s.arrivals.append(key)
                    s.strays.append(ticket)
                }
                // Held by the motion: nothing can start, so there is nothing to pump.
                if !s.window.holds(row) { _pump(in: &s) }
            }
            // The pump ran only for rows the motion does not hold, so `phase` is current.
            if phase == .waiting && s.window.holds(row) {
                s.stats.deferred += 1
                return .deferred(ticket)
            }
            return .pending(ticket)
        }
    }

    /// The cached image for `row`, or nil; schedules nothing.
    public func lookup(row: Int) throws(LoaderError) -> DecodedImage? {
        try state.withLock { s throws(LoaderError) in
            try s.cachedImage(forRow: row)
        }
    }

    /// The cached image for `url` at this loader's box, or nil; schedules nothing.
    public func lookup(url: ImageURL) throws(LoaderError) -> DecodedImage? {
        // The key (and its hash of the URL) is made before taking the lock.
        let key = CacheKey(url: url, options: configuration.decodeOptions)
        return try state.withLock { s throws(LoaderError) in
            guard !s.isShuttingDown else { throw .shutdown }
            return s.cache.image(for: key)
        }
    }

    /// Cancels a live ticket (its cancelled event follows) and returns true; false for
    /// a ticket that is unknown or already finished.
    public func cancel(ticket: UInt64) throws(LoaderError) -> Bool {
        try state.withLock { s throws(LoaderError) in
            guard !s.isShuttingDown else { throw .shutdown }
            if _cancelFetch(ticket, in: &s) {
                _pump(in: &s)
                return true
            }
            guard s.tickets[ticket] != nil else { return false }
            _cancelTicket(ticket, in: &s)
            _pump(in: &s)
            return true
        }
    }

    /// Keys are made before taking the lock, once per row, when rows arrive.
    private func keys(for urls: [ImageURL?]) -> [CacheKey?] {
        urls.map { $0.map { CacheKey(url: $0, options: configuration.decodeOptions) } }
    }

    // MARK: Stats and memory

    public var stats: LoaderStats {
        var stats = state.withLock { s in
            var stats = s.stats
            stats.memoryCacheBytes = UInt64(s.cache.totalCost + s.cache.reservedBytes)
            stats.animationBytes = UInt64(s.cache.reservedBytes)
            stats.memoryCacheCount = UInt64(s.cache.count)
            stats.inFlight = UInt64(s.downloading)
            return stats
        }
        stats.eventsDelivered = delivery.delivered.load(ordering: .relaxed)
        stats.framesDecoded = framesDecoded.load(ordering: .relaxed)
        if let disk = diskCache?.statistics {
            stats.diskBytes = disk.bytes
            stats.diskEntries = disk.entries
            stats.diskEvictions = disk.evictions
            stats.diskWriteErrors = disk.writeErrors
        }
        return stats
    }

    public enum TrimLevel: Sendable {
        /// Down to half the cache's limit, images not used recently first.
        case moderate
        /// Everything.
        case complete
    }

    /// Drops cached images. Images the host holds stay valid: the cache only lets go
    /// of its own references. `.complete` also drops the drawn placeholders, then gives
    /// the freed memory back to the system, outside the lock (a few milliseconds for a
    /// large heap).
    public func trimMemory(_ level: TrimLevel) {
        state.withLock { s in
            // Animation frames go first.
            _trimAnimations(level, in: &s)
            switch level {
            case .moderate:
                s.cache.evict(downTo: max(0, s.cache.capacity / 2 - s.animations.bytes))
                _dropRemovedAnimations(in: &s)
            case .complete:
                s.cache.removeAll()
            }
        }
        if level == .complete {
            placeholders.dropDrawn()
            lazyimg_release_free_memory()
        }
    }

    // MARK: Delivery

    /// Host delivery: the fd readable while events wait; -1 in thread delivery. The
    /// loader signals it only once asked for it here (`EventQueue.armedFD`).
    public var eventFD: Int32 { delivery.queue.armedFD() }

    /// Host delivery: runs up to `max` waiting callbacks (0 = all waiting now) on the
    /// calling thread; returns how many ran.
    public func dispatch(max: Int) -> Int {
        // Most frames have nothing to deliver: they return before the loader's lock.
        guard delivery.mode == .host, delivery.queue.mayHaveEvents,
              !state.withLock({ $0.isShuttingDown }) else { return 0 }
        return delivery.dispatch(max: max)
    }

    /// Host delivery: blocks until an event waits or `milliseconds` pass (negative =
    /// no limit). Returns whether events wait.
    public func waitForEvents(milliseconds: Int) throws(LoaderError) -> Bool {
        guard delivery.mode == .host else { throw .misuse }
        guard !state.withLock({ $0.isShuttingDown }) else { throw .shutdown }
        return delivery.queue.waitForEvents(milliseconds: milliseconds)
    }

    // MARK: Shutdown

    /// Cancels everything, delivers every outstanding ticket's event (on this thread in
    /// host delivery), and stops the threads. No callback runs after it returns.
    /// Throws `.misuse` from inside a callback, leaving the loader untouched.
    public func shutdown() throws(LoaderError) {
        guard !delivery.isInsideCallback else { throw .misuse }
        let first = state.withLock { s in
            guard !s.isShuttingDown else { return false }
            s.isShuttingDown = true
            for id in Array(s.tickets.keys).sorted() { _cancelTicket(id, in: &s) }
            for id in s.fetches.tickets { _ = _cancelFetch(id, in: &s) }
            for key in Array(s.jobs.keys) { _dropJob(key, in: &s) }
            s.animations.removeAll()
            // Its images no longer count against the session's other loaders.
            s.cache.leaveSession()
            return true
        }
        guard first else { return }
        retryTimer.stop()
        transport.shutdown()
        decodePool.shutdown()
        delivery.finish()
    }
}

/// A weak reference to a loader for closures made before the loader is: set once,
/// in the loader's init, before any other thread can see it.
private final class WeakLoader: @unchecked Sendable {
    // @unchecked: written once before the loader is shared; weak loads are atomic.
    weak var loader: ImageLoader?
}
