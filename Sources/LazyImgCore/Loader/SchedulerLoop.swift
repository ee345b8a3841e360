import Synchronization

/// The scheduler's thread and its effect runner: reads what the host's calls and
/// the other threads pushed, feeds it to the `Scheduler`, and carries out the
/// effects it hands back (transfers, worker jobs, the memory cache, events). It
/// decides nothing itself, as `CurlTransferLoop` decides nothing for libcurl.
///
/// The thread sleeps while it has nothing to do. The host's calls wake it (one
/// eventfd write, coalesced) only when it sleeps: while the host reports a moving
/// list it naps instead, looking at what arrived every `napMilliseconds`, so no
/// frame of a fling pays a system call for it. Completions and worker results
/// wake it at once; its own timer (a retry, a host's pause) by the sleep's deadline.
final class SchedulerLoop: @unchecked Sendable {
    // @unchecked: the variables below the lets are the thread's alone (set up before
    // it starts), except those guarded by `steps`.

    // What a host's view call reads comes first, on one line of the object (each
    // line is a miss of its own after a frame's sleep).

    /// The host's calls a UI makes every frame, in the order they were made.
    let hostRing: HostInputRing
    let wake: WakeSignal
    /// The host's other calls, each tagged with the ring positions claimed before
    /// it (and a request that found the ring full).
    let hostInputs = Inbox<TaggedHostInput>()
    /// The network thread's and the workers' results.
    let workInputs = Inbox<SchedulerInput>()
    /// The scheduler's counters as of its last step, for `ImageLoader.stats`.
    let publishedStats = Locked(LoaderStats())

    let configuration: LoaderConfiguration
    let front: Locked<LoaderFront>
    let transport: any DataLoading
    let workers: WorkerPool
    let delivery: EventDelivery
    let downloadBudget: DownloadBudget
    let diskCache: DiskCache?
    let clock: any Clock
    /// Turns the host's cycle stamps into the clock's time; nil when the host's
    /// calls read the clock itself (`Clock.stampsCountCycles`).
    private let cycleStamps: CycleStampReader?
    let hostView: HostView
    let restingView: RestingView

    /// While the host's inputs keep coming (a list the host reports moving), the
    /// thread looks for them this often instead of being woken for each: a quarter
    /// of a 60 Hz frame, small beside a round trip, a decode or the landing lead.
    static let napMilliseconds: Int64 = 4
    /// It naps for as long as the host's last input is this recent; after that it
    /// sleeps until woken, so a host that stops calling mid-motion costs nothing.
    static let hostQuietMilliseconds: Int64 = 50

    /// Held cancellations past which they are queued without waiting
    /// (`LoaderConfiguration.cancellationHoldMilliseconds`).
    static let maxHeldCancellations = 64

    /// The latest view calls that found the ring full (a visible range, a scroll
    /// state, a target), folded into one input of each kind instead of queued. A UI
    /// makes a few calls a frame and the scheduler takes them every few
    /// milliseconds, so only a host calling in a loop with no pause comes here; a
    /// queue would otherwise grow without bound. Held by a host thread or the
    /// scheduler for a few stores, and only while inputs overflow. A `Locked`, as
    /// the library's other locks are: ThreadSanitizer sees its pthread mutex, and
    /// it reported the folding threads of `LoaderStressTests` racing inside a
    /// `Mutex`, whose lock the uninstrumented Synchronization module takes out of
    /// its sight.
    private let foldedView = Locked(FoldedView())
    /// View calls folded so far.
    let viewCallsFolded = Atomic<UInt64>(0)

    private let thread = Locked<NativeThread?>(nil)
    private let stopped = Atomic<Bool>(false)
    /// Steps begun and done, and whether the thread ended, for `waitForStep`;
    /// guarded by `steps`.
    private let steps = Condition()
    private var stepsBegun: UInt64 = 0
    private var stepsDone: UInt64 = 0
    private var ended = false
    private let stepWanted = Atomic<Bool>(false)
#if DEBUG
    /// Tests only: run on the scheduler's thread between a step's read of the ring
    /// and its take of the inbox, where a host's calls can land in either.
    let betweenRingAndInbox = Locked<(@Sendable () -> Void)?>(nil)
#endif

    // The thread's own.
    private let scheduler: Scheduler
    private var hostBatch: [SchedulerInput] = []
    /// The inbox's host inputs taken, in the order given, that wait for ring
    /// positions before them to be published (a host thread between its claim
    /// and its publish), and the scratch array they are taken into.
    private var taggedWaiting: [TaggedHostInput] = []
    private var taggedTaken: [TaggedHostInput] = []
    private var ringTaken: [SchedulerInput] = []
    private var workBatch: [SchedulerInput] = []
    private var effects: [SchedulerEffect] = []
    private var events: [LoaderEvent] = []
    /// The policy's CANCELLED events held while the list flies, oldest first, and
    /// when the first of them was held (monotonic milliseconds).
    private var heldCancellations: [LoaderEvent] = []
    private var heldSince: Int64 = 0
    private var hostInputsRead: UInt64 = 0
    private var foldsTaken: UInt64 = 0
    private var lastVisible: Range<Int>?
    /// On the monotonic clock, whatever the loader's clock: naps are real time.
    private var lastHostInput: Int64 = .min / 2

    init?(configuration: LoaderConfiguration, front: Locked<LoaderFront>, transport: any DataLoading,
          workers: WorkerPool, delivery: EventDelivery, downloadBudget: DownloadBudget, diskCache: DiskCache?,
          clock: any Clock, jitter: @escaping @Sendable () -> Double, hostView: HostView, restingView: RestingView) {
        guard let wake = WakeSignal(), let hostRing = HostInputRing() else { return nil }
        self.wake = wake
        self.hostRing = hostRing
        self.configuration = configuration
        self.front = front
        self.transport = transport
        self.workers = workers
        self.delivery = delivery
        self.downloadBudget = downloadBudget
        self.diskCache = diskCache
        self.clock = clock
        cycleStamps = clock.stampsCountCycles ? CycleStampReader() : nil
        self.hostView = hostView
        self.restingView = restingView
        scheduler = Scheduler(configuration: configuration, hasDiskCache: diskCache != nil,
                              environment: LoaderEnvironment(front: front, transport: transport, budget: downloadBudget),
                              jitter: jitter)
    }

    /// Starts the thread; false when the system refuses it.
    func start() -> Bool {
        guard let started = NativeThread(name: "lazyimg-sched", priority: .hostNonpreempting, { [self] in run() }) else { return false }
        thread.withLock { $0 = started }
        return true
    }

    // MARK: Inputs

    /// A host's call: queued in order; wakes the thread if it sleeps (or, when
    /// `urgent`, naps).
    func post(host input: SchedulerInput, urgent: Bool = false) {
        queue(host: input)
        wake.wake(urgent: urgent)
    }

    /// A host's call queued in order, without waking the thread (a caller holding
    /// the front lock wakes it after): a request into the ring, or when the ring is
    /// full, like every other kind, into the inbox after the positions claimed so
    /// far. Not a view call: those fold when the ring is full (`fold(view:)`).
    @inline(__always)
    func queue(host input: SchedulerInput) {
        if case .request = input, hostRing.push(input) { return }
        hostRing.countOther()
        hostInputs.push(TaggedHostInput(after: hostRing.claimed, input: input))
    }

    /// A host's view call that found the ring full: folded into the latest of its
    /// kind instead of queued.
    func fold(view input: SchedulerInput) {
        foldedView.withLock { $0.fold(input) }
        // Sequentially consistent, as an inbox's push is: `sleep` reads the count
        // after announcing its sleep, and this call reads the mode after the count.
        viewCallsFolded.add(1, ordering: .sequentiallyConsistent)
        wake.wake(urgent: false)
    }

    /// The network thread's or a worker's result: wakes the thread unless it runs.
    func post(work input: SchedulerInput) {
        workInputs.push(input)
        wake.wake(urgent: true)
    }

    /// Ends the thread once it has handled every input so far and the shutdown
    /// (every ticket and download ended). Idempotent.
    func stop() {
        if !stopped.exchange(true, ordering: .acquiringAndReleasing) { post(host: .shutdown, urgent: true) }
        thread.withLock { $0 }?.join()
    }

    /// Waits until the thread has taken a step that began after this call, so that it
    /// handled every input pushed before it and looked at its timer. (Tests, which
    /// move a fake clock, wait so for the scheduler's decisions.)
    func waitForStep() {
        let begun = steps.locked { stepsBegun }
        stepWanted.store(true, ordering: .sequentiallyConsistent)
        wake.wake(urgent: true)
        steps.locked {
            while stepsDone <= begun && !ended { steps.wait() }
        }
    }

    // MARK: The thread

    private func run() {
        while !step() { sleep() }
        steps.locked {
            ended = true
            steps.broadcast()
        }
    }

    /// Handles everything pushed since the last step, then the timer if it is due,
    /// and publishes what the host's threads read. Returns true after the shutdown.
    private func step() -> Bool {
        // Cleared before the step counts as begun: a `waitForStep` that reads the
        // count after it sets the flag after, and so gets the next step as well.
        stepWanted.store(false, ordering: .sequentiallyConsistent)
        steps.locked { stepsBegun += 1 }
        hostBatch.removeAll(keepingCapacity: true)
        workBatch.removeAll(keepingCapacity: true)
        takeHostInputs()
        let hostCount = hostBatch.count
        // After the queued ones: a call is folded only while older ones wait. The
        // count moves after the fold, so a count seen means its fold is there.
        let folded = viewCallsFolded.load(ordering: .acquiring)
        if folded != foldsTaken {
            foldsTaken = folded
            hostBatch += foldedView.withLock { $0.take() }
        }
        workInputs.takeAll(into: &workBatch)
        if hostCount > 0 { lastHostInput = MonotonicClock().nowMilliseconds }
        var shutdown = false
        // Decided together: the frame's view calls make one window, and what they
        // and the rest allow starts once, after all of them (`Scheduler.beginStep`).
        scheduler.beginStep()
        for input in hostBatch {
            if case .shutdown = input { shutdown = true }
            // The old list's events, held ones included, go before anything of the
            // new one's.
            if case .listReplaced = input { queueEvents(holdingCancellations: false) }
            handle(input)
        }
        if !shutdown {
            for input in workBatch { handle(input) }
            if let due = scheduler.timerDue, clock.nowMilliseconds >= due { handle(.timer) }
        }
        scheduler.endStep(now: clock.nowMilliseconds)
        carryOutDecisions()
        hostInputsRead &+= UInt64(hostCount)
        publish()
        // After the starts and the published stats: a host that sees an event sees
        // the downloads its cause let start, and counters that include it.
        queueEvents(holdingCancellations: !shutdown && scheduler.window.motion != .settled)
        steps.locked {
            stepsDone += 1
            steps.broadcast()
        }
        return shutdown
    }

    /// Everything the host gave since the last step, in the order given
    /// (`TaggedHostInput.merge`).
    private func takeHostInputs() {
        ringTaken.removeAll(keepingCapacity: true)
        let first = hostRing.head
        // A ring's worth at most: a host writing as fast as this reads must not
        // keep the step from ending.
        while ringTaken.count < Int(HostInputRing.capacity),
              let input = hostRing.take(imagesCached: scheduler.imagesCached) {
            ringTaken.append(input)
        }
#if DEBUG
        betweenRingAndInbox.withLock { $0 }?()
#endif
        // The inbox after the ring: an inbox input given before a position this
        // step read was pushed before that position was published, so it is here.
        // The other way round, a list pushed between the two takes would come a
        // step after the request for one of its rows that followed it.
        taggedTaken.removeAll(keepingCapacity: true)
        hostInputs.takeAll(into: &taggedTaken)
        taggedWaiting += taggedTaken
        TaggedHostInput.merge(ring: ringTaken, from: first, waiting: &taggedWaiting, into: &hostBatch)
    }

    private func handle(_ input: SchedulerInput) {
        var input = input
        if let cycleStamps, case .scroll(let state, let velocity, let stamp) = input {
            input = .scroll(state, velocity: velocity, at: cycleStamps.milliseconds(atStamp: stamp))
        }
        scheduler.handle(input, now: clock.nowMilliseconds)
        carryOutDecisions()
    }

    private func carryOutDecisions() {
        scheduler.takeEffects(into: &effects)
        carryOut(effects, events: &events)
    }

    /// Queues the step's events for delivery, but for the CANCELLED events the
    /// scheduler decided while `holdingCancellations` (rows that left the window:
    /// the host's cancels, a new list and shutdown queue theirs from the front),
    /// which wait for the next batch (`LoaderConfiguration.cancellationHoldMilliseconds`).
    /// Each was decided once already (its ticket retired in the front's hold):
    /// only when the host sees it moves. Nothing is held, and the batch goes
    /// first, when an event of another kind is for a row a cancellation is for,
    /// so a host sees each row's events in the order they were decided.
    private func queueEvents(holdingCancellations holding: Bool) {
        let holds = holding && !holdingWouldReorder
        if holds {
            let wasEmpty = heldCancellations.isEmpty
            heldCancellations += events.lazy.filter(\.isCancellation)
            events.removeAll(where: \.isCancellation)
            if wasEmpty && !heldCancellations.isEmpty { heldSince = MonotonicClock().nowMilliseconds }
        }
        if !heldCancellations.isEmpty
            && (!holds || heldCancellations.count >= Self.maxHeldCancellations
                || MonotonicClock().nowMilliseconds - heldSince >= configuration.cancellationHoldMilliseconds) {
            delivery.push(contentsOf: heldCancellations)
            heldCancellations.removeAll(keepingCapacity: true)
        }
        if !events.isEmpty {
            delivery.push(contentsOf: events)
            events.removeAll(keepingCapacity: true)
        }
    }

    /// Whether an event of the step other than a cancellation is for a row that a
    /// held cancellation, or one of the step's, is for. (A few events a step, at
    /// most 64 held: the scans cost nothing beside the events' delivery.)
    private var holdingWouldReorder: Bool {
        events.contains { event in
            !event.isCancellation
                && (heldCancellations.contains { $0.row == event.row }
                    || events.contains { $0.isCancellation && $0.row == event.row })
        }
    }

    /// What the host's threads read without asking the scheduler.
    private func publish() {
        hostView.publishLanding(scheduler.window.landing)
        // The front's frame calls play only visible rows' animations, and those that
        // left stop decoding: a short hold, once per change of the visible rows.
        if scheduler.window.visible != lastVisible {
            lastVisible = scheduler.window.visible
            front.withLock { [lastVisible] f in f.visibleRowsChanged(lastVisible) }
        }
        restingView.publish(isSettled ? scheduler.view.visible : nil, afterInputs: hostInputsRead)
        var stats = scheduler.stats
        stats.inFlight = UInt64(scheduler.downloading)
        publishedStats.withLock { if $0 != stats { $0 = stats } }
    }

    /// At rest, where the host's repeats of its view change nothing.
    private var isSettled: Bool { scheduler.view.repeatsChangeNothing && !scheduler.isShuttingDown }

    private func sleep() {
        let naps = !isSettled && MonotonicClock().nowMilliseconds - lastHostInput < Self.hostQuietMilliseconds
        var timeout = scheduler.timerDue.map { $0 - clock.nowMilliseconds }
        if naps { timeout = min(timeout ?? Self.napMilliseconds, Self.napMilliseconds) }
        if !heldCancellations.isEmpty {
            let due = max(0, heldSince + configuration.cancellationHoldMilliseconds - MonotonicClock().nowMilliseconds)
            timeout = min(timeout ?? due, due)
        }
        wake.sleep(naps ? .napping : .sleeping, milliseconds: timeout) {
            !hostInputs.isEmpty || hostRing.hasInput || !workInputs.isEmpty
                || stepWanted.load(ordering: .sequentiallyConsistent)
                || viewCallsFolded.load(ordering: .sequentiallyConsistent) != foldsTaken
        }
    }
}

/// The scheduler's answers from the loader: its memory cache, transport and budget.
private final class LoaderEnvironment: SchedulerEnvironment {
    let front: Locked<LoaderFront>
    let transport: any DataLoading
    let budget: DownloadBudget

    init(front: Locked<LoaderFront>, transport: any DataLoading, budget: DownloadBudget) {
        self.front = front
        self.transport = transport
        self.budget = budget
    }

    func cachedImage(_ key: CacheKey) -> DecodedImage? { front.withLock { $0.cache.peek(key) } }
    func progress(of transfer: TransferID) -> TransferProgress? { transport.progress(of: transfer) }
    var heldBytes: Int { budget.heldBytes }
    func queueForDecode(_ bytes: Int) { budget.queue(bytes) }
    func leftDecodeQueue(_ bytes: Int) { budget.unqueue(bytes) }
}

/// The latest view calls a host made while the scheduler's queue was full.
private struct FoldedView {
    private var visible: SchedulerInput?
    private var scroll: SchedulerInput?
    private var target: SchedulerInput?

    mutating func fold(_ input: SchedulerInput) {
        switch input {
        case .visible: visible = input
        case .scroll: scroll = input
        case .target: target = input
        default: assertionFailure("only view calls are folded")
        }
    }

    /// The folded inputs, oldest kind first as a frame makes them, and none left.
    mutating func take() -> [SchedulerInput] {
        defer { self = FoldedView() }
        return [visible, scroll, target].compactMap { $0 }
    }
}
