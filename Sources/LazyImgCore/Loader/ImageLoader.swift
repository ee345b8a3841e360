import CLazyImgSupport
import Synchronization

/// The loader: one list, its view state, its caches and its workers.
///
/// Every method is safe from any thread and returns without waiting on I/O or
/// decoding, except `waitForEvents` and `shutdown`. The host's calls record what
/// they are told and answer from what is at hand; the deciding happens on the
/// scheduler's thread (`SchedulerLoop`, `Scheduler`):
/// - the view calls (`setVisibleRange`, `setScrollState`, `setScrollTarget`) push
///   their input into a lock-free inbox and store the latest motion in atomics;
///   they take no lock at all;
/// - `request` answers a memory hit, or opens a ticket and pushes the request,
///   under the front lock (`LoaderFront`), which other threads hold only for short
///   bounded sections (caching an image, retiring a ticket);
/// - `dispatch` runs the events the event queue holds (its lock is held by others
///   only to append an event).
/// Callbacks never run with a lock held.
public final class ImageLoader: Sendable {
    public enum RequestResult: Sendable {
        /// In memory now.
        case image(DecodedImage)
        /// Scheduled or in flight; one event will follow for the ticket.
        case pending(UInt64)
        /// Held back while the list moves; one event will follow for the ticket.
        case deferred(UInt64)
    }

    // What the host's calls each frame read of the loader comes first, together
    // ahead of the configuration, which is large: after a frame's sleep each line
    // of the object they touch is a miss of its own.

    /// The scheduler's thread, its inputs and its effect runner.
    let loop: SchedulerLoop
    /// `loop.hostRing` and `loop.wake`, held here as well: a host's call reaches
    /// them from the loader's line, with no line of the loop's object in between.
    let hostRing: HostInputRing
    let wake: WakeSignal
    /// The latest motion the host gave, and the scheduler's landing zone.
    let hostView: HostView
    /// The view a list at rest set last, for the host's unchanged repeats of it.
    let restingView: RestingView
    /// Set once shutdown begins: the view calls check it without a lock.
    private let shutDown = Atomic<Bool>(false)
    /// What the host's calls answer from (rows, memory cache, live tickets).
    let front: Locked<LoaderFront>
    let delivery: EventDelivery
    let clock: any Clock
    /// `clock.stampsCountCycles`, decided once.
    private let stampsCountCycles: Bool
    #if LAZYIMG_FRAME_FLOOR
    /// `make bench-frame-floor`'s stand-ins for the frame calls' work, on the lines
    /// the calls read first (`ImageLoader+FrameFloor.swift`).
    let floorTouched = Atomic<UInt>(0)
    let floorTickets = Atomic<UInt64>(0)
    #endif

    public let configuration: LoaderConfiguration
    let transport: any DataLoading
    let workers: WorkerPool
    /// What running downloads and files waiting to decode may hold together.
    let downloadBudget: DownloadBudget
    /// Animation frames decoded, counted by the decode jobs, which take no lock.
    let framesDecoded = Atomic<UInt64>(0)

    /// nil unless the configuration names a directory (or a session with one).
    let diskCache: DiskCache?
    /// The rows' placeholder hashes and the images drawn from them.
    let placeholders: RowPlaceholders

    /// - Parameters:
    ///   - transport: fetches bytes; nil = the configuration's session, or without
    ///     one libcurl on a network thread of its own (and file:// on a reader
    ///     thread, when allowed).
    ///   - makeDecoder: makes one decoder per worker thread.
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
        guard let workers = WorkerPool(threads: configuration.decodeThreads, makeDecoder: makeDecoder) else {
            delivery.finish()
            throw .io
        }
        guard let network = transport ?? configuration.session.flatMap({ session in
                    SchemeRoutingDataLoader(network: session.transfers.makeClient(),
                                            allowFileURLs: configuration.allowFileURLs)
                }) ?? SchemeRoutingDataLoader(configuration: configuration)
        else {
            workers.shutdown()
            delivery.finish()
            throw .network
        }
        let front = Locked(LoaderFront(configuration: configuration))
        let budget = DownloadBudget(limit: configuration.decodeQueueBytes)
        let hostView = HostView(slowRowsPerSecond: configuration.slowScrollRowsPerSecond)
        let restingView = RestingView()
        guard let loop = SchedulerLoop(configuration: configuration, front: front, transport: network,
                                       workers: workers, delivery: delivery, downloadBudget: budget,
                                       diskCache: diskCache, clock: clock, jitter: jitter, hostView: hostView,
                                       restingView: restingView), loop.start()
        else {
            network.shutdown()
            workers.shutdown()
            delivery.finish()
            throw .io
        }
        self.configuration = configuration
        self.front = front
        self.loop = loop
        hostRing = loop.hostRing
        wake = loop.wake
        self.transport = network
        self.workers = workers
        self.delivery = delivery
        self.clock = clock
        stampsCountCycles = clock.stampsCountCycles
        self.hostView = hostView
        self.restingView = restingView
        downloadBudget = budget
        self.diskCache = diskCache
        placeholders = RowPlaceholders(options: configuration.decodeOptions)
        joinSessionMemoryBudget()
        // Counting what the directory holds reads every shard: a worker's job, not
        // the creating thread's.
        if let diskCache { workers.submit(priority: Int.max) { _ in diskCache.loadIndex() } }
    }

    deinit {
        // Dropped without shutdown (Swift callers): the scheduler's thread still ends.
        loop.stop()
    }

    var isShutDown: Bool { shutDown.load(ordering: .acquiring) }

    // MARK: The list

    /// Replaces the list. Outstanding tickets end cancelled; the cache stays.
    public func setItems(_ urls: [ImageURL?]) throws(LoaderError) {
        let rows = keys(for: urls)
        // Made outside the front lock, and the old rows freed outside it (`incoming`
        // holds them after the swap): in the lock only the cached images are noted,
        // so a long list holds it for as many images as the cache has, not rows.
        var incoming = RowKeys(rows)
        let cancelled = try front.withLock { f throws(LoaderError) in
            guard !f.isShuttingDown else { throw .shutdown }
            // Before the rows change: an image ticket's event takes its URL from them.
            let cancelled = f.cancelAll { !$0.isFetch }
            incoming.noteCachedImages(in: f.cache)
            swap(&f.rows, &incoming)
            placeholders.listReplaced(rowCount: rows.count)
            // In the same hold: the scheduler reads the new list before any request
            // made for it.
            loop.post(host: .listReplaced(rows))
            return cancelled
        }
        delivery.push(contentsOf: cancelled)
        wake.wake(urgent: true)
    }

    /// Appends the next page of rows.
    public func appendItems(_ urls: [ImageURL?]) throws(LoaderError) {
        let rows = keys(for: urls)
        try front.withLock { f throws(LoaderError) in
            guard !f.isShuttingDown else { throw .shutdown }
            f.rows.append(contentsOf: rows, in: f.cache)
            placeholders.listAppended(rows.count)
            loop.post(host: .listAppended(rows))
        }
        wake.wake(urgent: true)
    }

    public var itemCount: Int {
        front.withLock { $0.rows.count }
    }

    // MARK: View state

    /// Rows `first ..< first + count` are on screen. Work for rows outside the visible
    /// range, the landing zone and the prefetch window is cancelled.
    public func setVisibleRange(first: Int, count: Int) throws(LoaderError) {
        guard !isShutDown else { throw .shutdown }
        let lower = max(0, first)
        let rows = lower..<lower.addingClamped(max(0, count))
        // A list at rest repeats its range every frame: dropped when it changes nothing.
        if restingView.isCurrent(inputsPushed: hostRing.inputsGiven, rows: rows) { return }
        hostView.setVisible(rows)
        post(view: .visible(rows))
    }

    /// At rest or slower than the slow-scroll speed the list loads as at rest;
    /// faster, nothing new starts except the landing zone of a deceleration. Each
    /// call while decelerating is one velocity sample of the decay.
    public func setScrollState(_ scroll: ScrollState, velocity: Double) throws(LoaderError) {
        guard !isShutDown else { throw .shutdown }
        // A list at rest says so every frame: dropped when it changes nothing.
        if scroll == .idle && velocity == 0
            && restingView.isCurrent(inputsPushed: hostRing.inputsGiven, rows: nil) { return }
        hostView.setScroll(scroll, velocity: velocity)
        let at = stampsCountCycles ? CycleStamps.now : clock.nowMilliseconds
        post(view: .scroll(scroll, velocity: velocity, at: at))
    }

    /// A view call's input: queued in the input ring and the scheduler woken as
    /// `SchedulerLoop.post(host:)` does, unless the ring is full (a host calling in
    /// a loop), when the loop folds it into the latest of its kind.
    ///
    /// Never urgent: a scheduler that naps (the list moved within the last
    /// `SchedulerLoop.hostQuietMilliseconds`) looks within `napMilliseconds` anyway,
    /// and one that sleeps is woken all the same. So a gesture's frames, its touch,
    /// release, target and rest included, write to no eventfd while the scheduler
    /// naps: only the call that finds it asleep (a touch from rest) pays the write.
    @inline(__always)
    private func post(view input: SchedulerInput) {
        guard hostRing.push(input) else { return loop.fold(view: input) }
        wake.wake(urgent: false)
    }

    /// Rows `first ..< first + count` will be on screen when the list rests (the
    /// toolkit's own prediction); count 0 withdraws it. Void after the next touch,
    /// at rest, or when the list turns away.
    public func setScrollTarget(first: Int, count: Int) throws(LoaderError) {
        guard !isShutDown else { throw .shutdown }
        let lower = max(0, first)
        post(view: .target(lower..<lower.addingClamped(max(0, count))))
    }

    // MARK: Rows

    /// Image for `row`: from memory at once, else a ticket whose event follows.
    public func request(row: Int) throws(LoaderError) -> RequestResult {
        var shown: CacheKey?
        let result = try front.withLock { f throws(LoaderError) -> RequestResult in
            if let image = try f.cachedImage(forRow: row) {
                shown = f.countMemoryHit(row: row)
                return .image(image)
            }
            return try missed(row: row, in: &f)
        }
        answered(result, shown: shown)
        return result
    }

    /// A request that missed memory, in the front's hold: its ticket, or why none.
    @inline(__always)
    func missed(row: Int, in f: inout LoaderFront) throws(LoaderError) -> RequestResult {
        guard try f.isLoadable(row: row) else { throw .badURL }
        if !f.failures.isEmpty,
           let failure = f.failures.recentFailure(of: try f.key(forRow: row).url, now: clock.nowMilliseconds) {
            throw failure.error
        }
        f.stats.requests += 1
        let ticket = f.openTicket(row: row)
        // In the same hold: the scheduler reads it after the list it belongs to.
        loop.queue(host: .request(ticket: ticket, row: row, imagesCached: f.imagesCached))
        guard hostView.holds(row) else { return .pending(ticket) }
        f.stats.deferred += 1
        return .deferred(ticket)
    }

    /// After the hold: the scheduler told of a prefetched image seen, or woken for
    /// the ticket's decision.
    @inline(__always)
    func answered(_ result: RequestResult, shown: CacheKey?) {
        if let shown { loop.post(host: .prefetchShown(shown)) }
        if case .image = result { return }
        wake.wake(urgent: false)
    }

    /// The cached image for `row`, or nil; schedules nothing.
    public func lookup(row: Int) throws(LoaderError) -> DecodedImage? {
        try front.withLock { f throws(LoaderError) in
            try f.cachedImage(forRow: row)
        }
    }

    /// The cached image for `url` at this loader's box, or nil; schedules nothing.
    public func lookup(url: ImageURL) throws(LoaderError) -> DecodedImage? {
        // The key (and its hash of the URL) is made before taking the lock.
        let key = CacheKey(url: url, options: configuration.decodeOptions)
        return try front.withLock { f throws(LoaderError) in
            guard !f.isShuttingDown else { throw .shutdown }
            return f.cache.image(for: key)
        }
    }

    /// Cancels a live ticket (its cancelled event follows) and returns true; false for
    /// a ticket that is unknown or already finished.
    public func cancel(ticket: UInt64) throws(LoaderError) -> Bool {
        let ended = try front.withLock { f throws(LoaderError) -> LoaderEvent? in
            guard !f.isShuttingDown else { throw .shutdown }
            guard let live = f.retire(ticket) else { return nil }
            loop.queue(host: .cancel(ticket: ticket))
            return f.cancelledEvent(of: live, ticket)
        }
        guard let ended else { return false }
        delivery.push(contentsOf: CollectionOfOne(ended))
        wake.wake(urgent: false)
        return true
    }

    /// Keys are made before taking the lock, once per row, when rows arrive.
    private func keys(for urls: [ImageURL?]) -> [CacheKey?] {
        urls.map { $0.map { CacheKey(url: $0, options: configuration.decodeOptions) } }
    }

    // MARK: Stats and memory

    public var stats: LoaderStats {
        var stats = loop.publishedStats.withLock { $0 }
        front.withLock { f in
            stats.requests = f.stats.requests
            stats.memoryHits = f.stats.memoryHits
            stats.deferred = f.stats.deferred
            stats.memoryCacheBytes = UInt64(f.cache.totalCost + f.cache.reservedBytes)
            stats.animationBytes = UInt64(f.cache.reservedBytes)
            stats.memoryCacheCount = UInt64(f.cache.count)
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
        front.withLock { f in
            // Animation frames go first.
            f.trimAnimations(level)
            switch level {
            case .moderate:
                f.cache.evict(downTo: max(0, f.cache.capacity / 2 - f.animations.bytes))
                f.dropRemovedAnimations()
            case .complete:
                f.cache.removeAll()
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
        // Most frames have nothing to deliver: they return after two atomic loads.
        guard delivery.mode == .host, delivery.queue.mayHaveEvents, !isShutDown else { return 0 }
        return delivery.dispatch(max: max)
    }

    /// Host delivery: blocks until an event waits or `milliseconds` pass (negative =
    /// no limit). Returns whether events wait.
    public func waitForEvents(milliseconds: Int) throws(LoaderError) -> Bool {
        guard delivery.mode == .host else { throw .misuse }
        guard !isShutDown else { throw .shutdown }
        return delivery.queue.waitForEvents(milliseconds: milliseconds)
    }

    // MARK: Shutdown

    /// Cancels everything, delivers every outstanding ticket's event (on this thread in
    /// host delivery), and stops the threads. No callback runs after it returns.
    /// Throws `.misuse` from inside a callback, leaving the loader untouched.
    public func shutdown() throws(LoaderError) {
        guard !delivery.isInsideCallback else { throw .misuse }
        let cancelled = front.withLock { f -> [LoaderEvent]? in
            guard !f.isShuttingDown else { return nil }
            f.isShuttingDown = true
            shutDown.store(true, ordering: .releasing)
            f.animations.removeAll()
            // Its images no longer count against the session's other loaders.
            f.cache.leaveSession()
            return f.cancelAll { _ in true }
        }
        guard let cancelled else { return }
        delivery.push(contentsOf: cancelled)
        // The scheduler stops every download and drops every job, then its thread ends.
        loop.stop()
        transport.shutdown()
        workers.shutdown()
        delivery.finish()
    }
}
