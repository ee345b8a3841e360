/// The one place that decides: which jobs run, which wait, which are cancelled, and
/// every job's life from the request that makes it to the event that ends it.
///
/// Fed inputs (`SchedulerInput`: the host's view and requests, completions, disk and
/// decode results, the timer), it hands out effects (`SchedulerEffect`: start,
/// cancel, read disk, decode, cache, queue an event) for the loader's effect runner
/// to carry out. It runs on one thread (`SchedulerLoop`'s), takes no lock of its own
/// and does no I/O; the few answers that live outside it come from its environment.
/// The policy tests drive it directly, on a fake clock.
///
/// A job's life, all of it in this file (`Job.Phase`):
///
///     waiting --(disk cache, first look)--> readingDisk --hit--> done (cached, events)
///        ^  \                                    |
///        |   \                          miss/stale: waiting, diskChecked
///        |    `--(a free slot, the motion allows)--> downloading(transfer)
///        |                                             |          \
///        '---- transient failure, retries left -------'       success
///              (waits out its backoff: timer)                    |
///                                                      decoding(claim) --> done
///     Any phase but decoding: dropped once nothing wants it (its download stops,
///     unless nearly done: that one finishes into the cache). A decoding job whose
///     rows left is skipped by the worker that reaches it.
final class Scheduler {
    let configuration: LoaderConfiguration
    let hasDiskCache: Bool
    let environment: any SchedulerEnvironment
    /// A number in 0..<1 for each retry's jitter; fixed in tests.
    let jitter: @Sendable () -> Double

    /// The time of the input being handled, on the loader's clock.
    private(set) var now: Int64 = 0
    /// What the inputs so far decided, in order, until the runner takes them.
    var effects: [SchedulerEffect] = []
    /// The `.cache` effects handed out so far.
    private(set) var imagesCached: UInt64 = 0
    /// When the scheduler wants a `.timer` input: the earliest moment a retry's wait
    /// or a host's pause ends. nil: none.
    private(set) var timerDue: Int64?

    /// One key per row (nil: no image), as the host's calls gave them.
    private(set) var rows: [CacheKey?] = []
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
    /// What this loader's downloads take: the lead of the host's landing zone.
    var downloadDurations = DownloadDurations()
    /// Live image tickets: a ticket leaves this table exactly when its event is decided.
    private(set) var tickets: [UInt64: Ticket] = [:]
    private(set) var jobs: [CacheKey: Job] = [:]
    private(set) var jobByTransfer: [TransferID: CacheKey] = [:]
    /// One counter for jobs and transfers: never 0, never reused.
    private var lastID: UInt64 = 0
    /// Transfers running (downloads and fetches).
    private(set) var downloading = 0
    /// `downloading` per host, and the jobs waiting for their host to free a slot.
    var hostSlots = HostSlots()
    var stats = LoaderStats()
    private(set) var isShuttingDown = false
    var paging = PagingTrigger()
    var fetches = DataFetches()
    /// Between `beginStep` and `endStep`: the step's view calls change the window
    /// once, and nothing starts until all of its inputs are in.
    private var inStep = false
    /// A view call of the step not yet made into the window.
    private var viewChangePending = false
    /// Something in the step would have pumped.
    private var pumpPending = false

    init(configuration: LoaderConfiguration, hasDiskCache: Bool, environment: any SchedulerEnvironment,
         jitter: @escaping @Sendable () -> Double) {
        self.configuration = configuration
        self.hasDiskCache = hasDiskCache
        self.environment = environment
        self.jitter = jitter
        view = ViewState(prefetchRows: configuration.prefetchRows,
                         slowRowsPerSecond: configuration.slowScrollRowsPerSecond)
        prefetch = PrefetchLedger(budgetBytes: configuration.prefetchWasteBytes)
        hostBackoff = configuration.hostBackoff
        failures = FailureRecords(retryAfterMilliseconds: Int64(configuration.retryAfterMilliseconds))
    }

    /// The effects decided so far, for the runner; the buffer is kept for the next.
    func takeEffects(into batch: inout [SchedulerEffect]) {
        swap(&batch, &effects)
        effects.removeAll(keepingCapacity: true)
    }

    // MARK: Steps

    /// Opens a step: the inputs handled until `endStep` are decided together, as the
    /// loop takes them together. A host reports a frame's scroll state before its
    /// visible rows, so each call alone is a view the list never had: on the frame
    /// a list slows to a loading speed, the state with the last frame's rows would
    /// start rows that the range, a moment later, stops (and the network thread may
    /// have sent them by then). Inside a step the view calls in a row make one
    /// change of the window, made before the next input of another kind, and the
    /// pump runs once, at the end. Outside a step (the policy tests) each input is
    /// decided alone.
    func beginStep() {
        inStep = true
    }

    /// Closes the step: the view as its calls left it, then one pump.
    func endStep(now: Int64) {
        self.now = now
        applyPendingViewChange()
        inStep = false
        if pumpPending {
            pumpPending = false
            pump()
        }
    }

    private func viewInputArrived() {
        if inStep { viewChangePending = true } else { viewDidChange() }
    }

    private func applyPendingViewChange() {
        guard viewChangePending else { return }
        viewChangePending = false
        viewDidChange()
    }

    // MARK: Inputs

    func handle(_ input: SchedulerInput, now: Int64) {
        self.now = now
        switch input {
        case .scroll, .visible, .target: break
        default: applyPendingViewChange()
        }
        switch input {
        case .scroll(let state, let velocity, let at):
            view.setScroll(state, velocity: velocity, now: at)
            viewInputArrived()
        case .visible(let rows):
            view.setVisible(rows)
            viewInputArrived()
        case .target(let rows):
            view.setTarget(rows)
            viewInputArrived()
        case .request(let ticket, let row, let imagesCached):
            // Always there: the host checked the row's key in the hold that also
            // ordered its list before this request.
            guard rows.indices.contains(row), let key = rows[row] else { return }
            request(ticket, row: row, key: key, imagesCachedThen: imagesCached)
        case .cancel(let ticket):
            if cancelFetch(ticket) || tickets[ticket] != nil {
                cancelTicket(ticket)
                pump()
            }
        case .fetch(let ticket, let url):
            guard !isShuttingDown else { return }
            fetches.enqueue(.init(ticket: ticket, url: url))
            pump()
        case .listReplaced(let keys):
            for id in Array(tickets.keys) { cancelTicket(id) }
            rows = keys
            paging.listDidGrow()
            listDidChange()
        case .listAppended(let keys):
            rows.append(contentsOf: keys)
            view.rowCount = rows.count
            if !keys.isEmpty { paging.listDidGrow() }
            viewDidChange()
        case .paging(let distanceRows, let hasMore):
            paging.configure(distanceRows: distanceRows, hasMore: hasMore)
            askForPageIfNearEnd()
        case .prefetchShown(let key):
            if prefetch.shown(key) {
                stats.prefetchHits += 1
                // The waste budget may have room again.
                pump()
            }
        case .downloaded(let transfer, let response, let encoded, let wallClock):
            downloadDidFinish(transfer, response, encoded: encoded, wallClock: wallClock)
        case .fetched(let transfer, let response):
            fetchDidFinish(transfer, response)
        case .receivedPrefix(let transfer, let prefix):
            prefixDidArrive(prefix, of: transfer)
        case .previewDecoded(let job, let key, let image, let passes):
            previewDidDecode(image, passes: passes, job: job, key: key)
        case .diskRead(let job, let key, let found):
            diskReadDidFinish(job, key, found)
        case .decoded(let job, let key, let result, let httpStatus, let message, let source, let releasedBytes):
            finishJob(job, key, result, httpStatus: httpStatus, message: message, source: source)
            // In the same step as the answer: the runner queues the events after the
            // starts, so the host never sees an event before the downloads it let start.
            if let releasedBytes { fileLeftTheQueue(releasedBytes) }
        case .decodeSkipped(let job, let key, let releasedBytes):
            decodeWasSkipped(job, key)
            fileLeftTheQueue(releasedBytes)
        case .fileReleased(let bytes):
            fileLeftTheQueue(bytes)
        case .timer:
            timerDidFire()
        case .shutdown:
            shutdown()
        }
    }

    // MARK: Requests

    /// A request that missed the memory cache: its ticket joins the job of its key,
    /// or makes one, and the job starts as soon as the window and a slot allow.
    private func request(_ ticket: UInt64, row: Int, key: CacheKey, imagesCachedThen: UInt64) {
        guard !isShuttingDown else { return }
        // The host looked a moment ago; a job that ended since may have answered.
        // Only this scheduler caches images: when it cached none since, the host's
        // miss stands, and the cache's lock (the host's) is not taken for nothing.
        if jobs[key] == nil {
            if imagesCachedThen != imagesCached, let image = environment.cachedImage(key) {
                tickets[ticket] = Ticket(row: row, key: key)
                finish(ticket, .image(image, .memory), httpStatus: 0)
                return
            }
            if let failure = failures.recentFailure(of: key.url, now: now) {
                tickets[ticket] = Ticket(row: row, key: key)
                finish(ticket, .failed(failure.error), httpStatus: failure.httpStatus,
                       message: FailureMessage.describe(failure.error, bytes: nil))
                return
            }
        }
        tickets[ticket] = Ticket(row: row, key: key)
        let phase: Job.Phase
        if let joined = withJob(key, { job in
            job.tickets[ticket] = row
            return job.phase
        }) {
            stats.downloadsCoalesced += 1
            phase = joined
            updateClaim(key)
        } else {
            var job = Job(id: makeID(), key: key)
            job.tickets[ticket] = row
            jobs[key] = job
            phase = .waiting
        }
        if window.visible != nil { claimed.insert(row) }
        guard phase == .waiting else { return }
        if window.visible == nil {
            arrivals.append(key)
        } else if window.wants(row) {
            toStart.insert(row)
        } else {
            arrivals.append(key)
            strays.append(ticket)
        }
        // Held by the motion: nothing can start, so there is nothing to pump.
        if !window.holds(row) { pump() }
    }

    /// Ends a live ticket with CANCELLED and lets go of its job if nothing else wants it.
    func cancelTicket(_ id: UInt64) {
        guard let ticket = finish(id, .failed(.cancelled), httpStatus: 0) else { return }
        withJob(ticket.key) { $0.tickets[id] = nil }
        releaseIfUnwanted(ticket.key)
    }

    /// Decides the one event of ticket `id` and retires the ticket, returning it (nil
    /// for a ticket no longer live).
    @discardableResult
    func finish(_ id: UInt64, _ outcome: LoaderEvent.Outcome, httpStatus: Int, message: String = "") -> Ticket? {
        guard let ticket = tickets.removeValue(forKey: id) else { return nil }
        effects.append(.finish(LoaderEvent(ticket: id, row: ticket.row, url: ticket.key.url, outcome: outcome,
                                           httpStatus: httpStatus, message: message)))
        return ticket
    }

    // MARK: Starting

    /// Starts the most urgent startable jobs while download slots are free, as far
    /// as the motion of the list and the start pacing allow. Inside a step, once at
    /// its end (`beginStep`).
    func pump() {
        if inStep {
            pumpPending = true
            return
        }
        startFetches()
        guard !isShuttingDown else { return }
        startDiskReads()
        let moving = view.scroll != .idle
        let screen = window.visible?.count ?? 0
        // Back-pressure: none while running downloads and files waiting to decode
        // hold the budget, unless they hold nothing.
        let held = environment.heldBytes
        guard held == 0 || held < configuration.decodeQueueBytes else { return }
        while downloading < configuration.maxConcurrentDownloads {
            let mayPace = !moving
                || starts.mayStart(now: now, screen: screen, concurrency: configuration.maxConcurrentDownloads)
            guard let next = nextToStart(includingPaced: mayPace) else { return }
            // A job the prefetcher just made looks on disk first; that takes no slot.
            if hasDiskCache, jobs[next.key]?.diskChecked == false {
                startDiskRead(next.key)
                continue
            }
            // libcurl would queue it, holding a slot another host's row could use.
            if hostSlots.isFull(next.key.url, limit: configuration.maxHostConnections) {
                hostSlots.hold(next.key)
                continue
            }
            if moving && next.isPaced { starts.take() }
            startDownload(next.key, row: next.row)
        }
    }

    /// The most urgent row with work to start, its job made if the prefetcher is the
    /// first to want it. Rows found to need nothing leave `toStart` on the way.
    private func nextToStart(includingPaced: Bool) -> (key: CacheKey, row: Int?, isPaced: Bool)? {
        var index = 0
        while let query = window.query(at: index) {
            index += 1
            if query.isPrefetch && !prefetch.allowsPrefetch { continue }
            if query.isPaced && !includingPaced { continue }
            while let row = query.ascending ? toStart.first(in: query.rows) : toStart.last(in: query.rows) {
                toStart.remove(row)
                if let key = startableKey(forRow: row) { return (key, row, query.isPaced) }
            }
        }
        // Requests the geometry does not cover (before the first visible range, or for
        // rows outside the window), in the order they came.
        guard window.motion == .settled else { return nil }
        while let key = arrivals.popFirst() {
            // A job waiting out a retry or its host's pause leaves the queue; the timer
            // queues it again when it is due.
            if let job = jobs[key], job.phase == .waiting, job.mayStart(now: now, hosts: hostBackoff) {
                return (key, nil, true)
            }
        }
        return nil
    }

    private func startableKey(forRow row: Int) -> CacheKey? {
        guard row < rows.count, let key = rows[row] else { return nil }
        let (now, hosts) = (now, hostBackoff)
        let existing = withJob(key) { job -> (claimed: Bool, startable: Bool) in
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
            if existing.claimed {
                claimed.insert(row)
                updateClaim(key)
            }
            return existing.startable ? key : nil
        }
        guard key.isLoadable(allowingFiles: configuration.allowFileURLs),
              failures.recentFailure(of: key.url, now: now) == nil,
              hostBackoff.pausedUntil(key.url, now: now) == nil,
              environment.cachedImage(key) == nil
        else { return nil }
        var job = Job(id: makeID(), key: key)
        job.prefetchRow = row
        jobs[key] = job
        claimed.insert(row)
        return key
    }

    private func startDownload(_ key: CacheKey, row: Int?) {
        let id = makeID()
        let validators = withJob(key) { job in
            job.phase = .downloading(id)
            job.startRow = row ?? job.tickets.anyRow
            job.downloadStartedAt = now
            return job.staleCopy?.metadata.validatorHeaders
        } ?? nil
        jobByTransfer[id] = key
        downloading += 1
        hostSlots.didStart(key.url)
        stats.downloadsStarted += 1
        // A stale disk copy is revalidated: a 304 answers without a body.
        effects.append(.startDownload(id, key.url, validators: validators))
    }

    /// Every waiting job not yet looked for on disk goes to look now: disk reads take
    /// no download slot, so an image on disk never waits behind downloads.
    private func startDiskReads() {
        guard hasDiskCache else { return }
        for (key, job) in jobs where job.phase == .waiting && !job.diskChecked {
            startDiskRead(key)
        }
    }

    private func startDiskRead(_ key: CacheKey) {
        guard let job = jobs[key] else { return }
        withJob(key) { $0.phase = .readingDisk }
        effects.append(.readDisk(job: job.id, key: key, priority: job.rank(in: window)))
    }

    // MARK: Letting go

    /// Drops a job nothing wants any more, unless its download is nearly done: that
    /// one finishes into the cache, as stopping it would waste what already came. A
    /// job whose download is done stays until its decode: a running one fills the
    /// cache, a queued one is skipped if still unwanted when a worker reaches it
    /// (`DecodeClaim`); meanwhile a row that comes back joins it rather than
    /// downloading the URL again.
    func releaseIfUnwanted(_ key: CacheKey) {
        // Read in place: a copy of the job would retain all of its fields.
        let releasable = withJob(key) { job in
            !job.isWanted && !job.finishesUnwanted && !job.isDecoding ? job.phase : nil
        }
        guard let phase = releasable ?? nil else { return updateClaim(key) }
        if case .downloading(let transfer) = phase, environment.progress(of: transfer)?.isNearlyDone == true {
            withJob(key) { $0.finishesUnwanted = true }
            return
        }
        dropJob(key)
    }

    /// Tells a queued decode whether its job is still wanted, after its tickets or
    /// prefetch claim changed.
    private func updateClaim(_ key: CacheKey) {
        withJob(key) { job in
            if case .decoding(let claim) = job.phase { claim.setWanted(job.isWanted || job.finishesUnwanted) }
        }
    }

    /// Forgets a job, stopping its download. A decode already running finishes and
    /// only fills the cache; a queued one is skipped.
    private func dropJob(_ key: CacheKey) {
        guard let job = jobs.removeValue(forKey: key) else { return }
        switch job.phase {
        case .downloading(let transfer):
            jobByTransfer[transfer] = nil
            downloading -= 1
            stats.downloadsCancelled += 1
            effects.append(.cancelTransfer(transfer, keepingBytes: true))
            hostSlotFreed(key.url)
        case .decoding(let claim):
            claim.setWanted(false)
        case .waiting, .readingDisk:
            break
        }
    }

    /// A download or fetch of `url` ended or stopped: the jobs its host held back go
    /// back to the pump.
    private func hostSlotFreed(_ url: ImageURL) {
        for key in hostSlots.didEnd(url) {
            if let job = jobs[key], job.phase == .waiting { requeue(job) }
        }
    }

    /// Offers a waiting job to the pump again, after the pump took its rows out of
    /// `toStart` while it could not start (retry wait, host pause, disk read): its
    /// rows in the window go back there, anything else to the arrival order.
    private func requeue(_ job: Job) {
        var queued = false
        for row in Array(job.tickets.rows) + (job.prefetchRow.map { [$0] } ?? [])
        where window.visible != nil && window.wants(row) {
            toStart.insert(row)
            queued = true
        }
        if !queued { arrivals.append(job.key) }
    }

    // MARK: Results

    private func downloadDidFinish(_ transfer: TransferID, _ received: DataResponse,
                                   encoded: Result<DecodedImage, LoaderError>?, wallClock: Int64) {
        // A transfer we cancelled may still report; it is no longer known.
        guard let key = jobByTransfer.removeValue(forKey: transfer), let job = jobs[key] else { return }
        // A 304, or a failure a stale disk copy may answer instead, becomes that copy.
        let (response, origin) = resolveWithDiskCopy(job.staleCopy, received, wallClock: wallClock)
        downloading -= 1
        hostSlotFreed(key.url)
        stats.bytesDownloaded = stats.bytesDownloaded.addingClamped(response.bytesReceived)
        stats.bytesResumed = stats.bytesResumed.addingClamped(response.resumedBytes)
        if case .success(let bytes) = response.result, job.tickets.isEmpty, let row = job.prefetchRow ?? job.startRow {
            fetchedUnasked(key, row: row, bytes: bytes.count)
        }
        if case .success = response.result { hostBackoff.recordSuccess(of: key.url) }
        if case .revalidated = origin { stats.diskRevalidations += 1 }
        switch response.result {
        case .success(let bytes) where encoded != nil && !hasDiskCache:
            // The host decodes: hand out the file once its bytes say it is an image.
            if let encoded {
                finishJob(job.id, key, encoded, httpStatus: response.httpStatus,
                          message: encoded.failure.map { FailureMessage.describe($0, bytes: bytes) } ?? "")
            }
        case .success(let bytes):
            // With a disk cache, encoded output too goes through a worker: it writes
            // the file after answering, and a loader destroyed meanwhile waits for it.
            let source: ImageSource = origin == .network || origin == .firstPass ? .network : .disk
            queueDecode(job, bytes, httpStatus: response.httpStatus, source: source, origin: origin,
                        headers: response.cacheHeaders)
        case .failure(let error):
            stats.downloadsFailed += 1
            downloadDidFail(key, error, response)
        }
        pump()
    }

    /// A 304 for a stale copy becomes that copy's bytes, and so does a network
    /// failure or a 5xx when stale answers are allowed.
    private func resolveWithDiskCopy(_ copy: DiskCache.Entry?, _ response: DataResponse,
                                     wallClock: Int64) -> (DataResponse, DownloadOrigin) {
        // A first pass decodes as one, with a disk cache or without.
        if response.endsAtFirstPass { return (response, .firstPass) }
        guard hasDiskCache else { return (response, .network) }
        guard let copy else { return (response, .network) }
        var resolved = response
        resolved.result = .success(copy.body)
        if response.httpStatus == 304 {
            return (resolved, .revalidated(copy.metadata.revalidated(by: response.cacheHeaders, now: wallClock)))
        }
        switch response.result {
        case .failure(.network) where configuration.serveStaleOnError,
             .failure(.http(500...)) where configuration.serveStaleOnError:
            return (resolved, .stale)
        default:
            return (response, .network)
        }
    }

    /// Hands a downloaded job's bytes to a worker to decode, counted in the download
    /// budget until the worker lets go of them: with fast downloads and slow decodes
    /// the bodies pile up (200 rows of a 27 MB PNG reached 2.1 GB), so the pump starts
    /// nothing while they hold more than `decodeQueueBytes`.
    private func queueDecode(_ job: Job, _ bytes: [UInt8], httpStatus: Int, source: ImageSource,
                             origin: DownloadOrigin, headers: HTTPCacheHeaders) {
        let claim = DecodeClaim()
        let priority = job.rank(in: window)
        withJob(job.key) { $0.phase = .decoding(claim) }
        environment.queueForDecode(bytes.count)
        effects.append(.decode(DecodeWork(job: job.id, key: job.key, bytes: bytes, httpStatus: httpStatus,
                                          source: source, origin: origin, headers: headers, priority: priority,
                                          claim: claim)))
    }

    /// The budget gets a file's bytes back; the room, or a prefetched image shown
    /// meanwhile, may let more start.
    private func fileLeftTheQueue(_ bytes: Int) {
        environment.leftDecodeQueue(bytes)
        pump()
    }

    /// A worker found the job unwanted and skipped its decode. A row that came back
    /// since (after the worker decided) sends it to the network again.
    private func decodeWasSkipped(_ jobID: UInt64, _ key: CacheKey) {
        stats.decodesSkipped += 1
        guard let job = jobs[key], job.id == jobID else { return }
        guard job.isWanted else {
            jobs[key] = nil
            return
        }
        withJob(key) { $0.phase = .waiting }
        requeue(job)
    }

    /// A disk answer: the job's image, or on to the network.
    private func diskReadDidFinish(_ jobID: UInt64, _ key: CacheKey, _ found: DiskLookup) {
        switch found {
        case .image(let image, let decoded):
            stats.diskHits += 1
            finishJob(jobID, key, .success(image), httpStatus: 0, message: "", source: .disk, decoded: decoded)
        case .stale, .miss:
            guard jobs[key]?.id == jobID else { break }
            withJob(key) { job in
                job.diskChecked = true
                job.phase = .waiting
                if case .stale(let copy) = found { job.staleCopy = copy }
            }
            // The pump let go of the job's rows while it read; on to the network.
            if let job = jobs[key] { requeue(job) }
        }
        pump()
    }

    /// A job's image is ready (or could not be made from its bytes): cache it and
    /// answer every ticket. `decoded` is false for a thumbnail read from disk.
    private func finishJob(_ jobID: UInt64, _ key: CacheKey, _ result: Result<DecodedImage, LoaderError>,
                           httpStatus: Int, message: String, source: ImageSource = .network, decoded: Bool = true) {
        switch result {
        case .success(let image):
            if image.encoded == nil && decoded { stats.imagesDecoded += 1 }
            let job = jobs[key].flatMap { $0.id == jobID ? $0 : nil }
            if let job {
                jobs[key] = nil
                // A revalidation or a stale copy served on an error comes as `.disk`: a
                // round trip or a failure, not a download's time.
                if source == .network, let started = job.downloadStartedAt { downloadDidTake(now &- started) }
                // Fetched unasked, then asked for while it downloaded or decoded.
                if !job.tickets.isEmpty && prefetch.shown(key) { stats.prefetchHits += 1 }
            }
            // Even for a job cancelled meanwhile: the work is done, keep it.
            effects.append(.cache(image, key, unseenPrefetch: prefetch.isUnseen(key)))
            imagesCached &+= 1
            for id in job?.tickets.ids.sorted() ?? [] { finish(id, .image(image, source), httpStatus: httpStatus) }
        case .failure(let error):
            guard let job = jobs[key], job.id == jobID else { return }
            fail(key, error, httpStatus: httpStatus, message: message)
        }
    }

    /// A download ended in an image `milliseconds` after it started: the host's
    /// landing zones start that much sooner or later.
    private func downloadDidTake(_ milliseconds: Int64) {
        downloadDurations.record(milliseconds: milliseconds)
        view.targetLeadSeconds = downloadDurations.targetLeadSeconds
    }

    /// Ends every ticket of the job with `error` and remembers the failure, so the URL
    /// answers at once for a while and is then tried again.
    private func fail(_ key: CacheKey, _ error: LoaderError, httpStatus: Int, message: String) {
        guard let job = jobs.removeValue(forKey: key) else { return }
        failures.record(key.url, error: error, httpStatus: httpStatus, now: now)
        effects.append(.recordFailure(key.url, .init(error: error, httpStatus: httpStatus, at: now)))
        for id in job.tickets.ids.sorted() {
            finish(id, .failed(error), httpStatus: httpStatus, message: message)
        }
    }

    /// An image nobody asked for is in the cache: prefetched for a row still in the
    /// window it waits to be shown; otherwise (a download finished because it was
    /// nearly done) it is waste unless the list comes back for it.
    private func fetchedUnasked(_ key: CacheKey, row: Int, bytes: Int) {
        if window.wants(row) {
            prefetch.fetched(key, row: row, bytes: bytes)
            claimed.insert(row)
        } else {
            stats.prefetchWasted += 1
            stats.prefetchWasteBytes = stats.prefetchWasteBytes.addingClamped(bytes)
        }
    }

    // MARK: Retries

    /// A download failed. A transient failure of a job with retries left sends it back
    /// to wait (its tickets keep waiting, no event yet); anything else ends its tickets.
    private func downloadDidFail(_ key: CacheKey, _ error: LoaderError, _ response: DataResponse) {
        let policy = configuration.retryPolicy
        let message = FailureMessage.describe(error, bytes: nil)
        guard RetryPolicy.isTransient(error) else {
            return fail(key, error, httpStatus: response.httpStatus, message: message)
        }
        if let pauseEnds = hostBackoff.recordFailure(of: key.url, now: now) { wake(at: pauseEnds) }
        guard let job = jobs[key], job.retries < policy.maxRetries else {
            return fail(key, error, httpStatus: response.httpStatus, message: message)
        }
        let delay = policy.delay(beforeRetry: job.retries + 1,
                                 retryAfterMilliseconds: response.retryAfterMilliseconds, unit: jitter())
        withJob(key) { job in
            job.retries += 1
            job.phase = .waiting
            job.notBefore = now.addingClamped(delay)
        }
        stats.downloadsRetried += 1
        wake(at: now.addingClamped(delay))
    }

    /// Asks for a `.timer` input at `moment`, or sooner if one is due before.
    func wake(at moment: Int64) {
        timerDue = min(timerDue ?? .max, moment)
    }

    /// The timer's moment came: start what is due, and ask to be woken for the next
    /// job still waiting out a retry or a host's pause.
    private func timerDidFire() {
        timerDue = nil
        guard !isShuttingDown else { return }
        // The pump forgot rows and requests it could not start yet: offer them again.
        for range in window.wantedRanges { toStart.insert(range) }
        for job in jobs.values where job.phase == .waiting { requeue(job) }
        pump()
        for job in jobs.values where job.phase == .waiting {
            let due = max(job.notBefore, hostBackoff.pausedUntil(job.key.url, now: now) ?? .min)
            if due > now { wake(at: due) }
        }
        considerWaitingPreviews()
    }

    // MARK: Data fetches

    /// Starts waiting fetches while transfer slots are free, before any image: called
    /// first thing whenever the scheduler starts work.
    private func startFetches() {
        guard !isShuttingDown else { return }
        while downloading < configuration.maxConcurrentDownloads, fetches.hasWaiting {
            let transfer = makeID()
            guard let fetch = fetches.startNext(as: transfer) else { return }
            downloading += 1
            hostSlots.didStart(fetch.url)
            effects.append(.startFetch(transfer, fetch.url))
        }
    }

    /// Ends a live fetch with CANCELLED, stopping its transfer. False when `ticket` is
    /// not a live fetch.
    private func cancelFetch(_ ticket: UInt64) -> Bool {
        guard let (fetch, transfer) = fetches.remove(ticket: ticket) else { return false }
        if let transfer {
            downloading -= 1
            effects.append(.cancelTransfer(transfer, keepingBytes: false))
            hostSlotFreed(fetch.url)
        }
        effects.append(.finish(LoaderEvent(ticket: ticket, row: 0, url: fetch.url, outcome: .failed(.cancelled),
                                           httpStatus: 0)))
        return true
    }

    private func fetchDidFinish(_ transfer: TransferID, _ response: DataResponse) {
        // A fetch cancelled meanwhile may still report; its event was decided already.
        guard let fetch = fetches.finish(transfer) else { return }
        downloading -= 1
        hostSlotFreed(fetch.url)
        stats.bytesDownloaded = stats.bytesDownloaded.addingClamped(response.bytesReceived)
        stats.bytesResumed = stats.bytesResumed.addingClamped(response.resumedBytes)
        let outcome: LoaderEvent.Outcome
        var message = ""
        switch response.result {
        case .success(let body):
            outcome = .data(body)
        case .failure(let error):
            outcome = .failed(error)
            message = FailureMessage.describe(error, bytes: nil)
        }
        effects.append(.finish(LoaderEvent(ticket: fetch.ticket, row: 0, url: fetch.url, outcome: outcome,
                                           httpStatus: response.httpStatus, message: message)))
        pump()
    }

    // MARK: Shutdown

    /// Ends every ticket and fetch and stops every download.
    private func shutdown() {
        guard !isShuttingDown else { return }
        isShuttingDown = true
        for id in Array(tickets.keys).sorted() { cancelTicket(id) }
        for id in fetches.tickets { _ = cancelFetch(id) }
        for key in Array(jobs.keys) { dropJob(key) }
    }

    // MARK: Helpers

    /// Runs `body` on the job of `key` where it lies in the table; nil without one.
    /// `jobs[key]?.field = x` moves the whole job out of the table and back (and
    /// `jobs[key]` copies it, retaining every field); the values view at the key's
    /// index is mutated in place.
    @discardableResult
    func withJob<R>(_ key: CacheKey, _ body: (inout Job) -> R) -> R? {
        guard let index = jobs.index(forKey: key) else { return nil }
        return body(&jobs.values[index])
    }

    private func makeID() -> UInt64 {
        lastID += 1
        return lastID
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
