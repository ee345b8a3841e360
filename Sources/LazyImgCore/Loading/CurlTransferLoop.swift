import CCurl

/// The network thread's body: owns the multi handle and every easy handle.
///
/// libcurl handles must not be shared between threads, so everything here runs on the
/// one thread `CurlDataLoader` starts; other threads only reach it through the
/// `CurlCommandQueue`. Completions are called from here with no lock held.
final class CurlTransferLoop: @unchecked Sendable {
    // @unchecked: after init, only the network thread touches any of this.
    private let multi: UnsafeMutableRawPointer
    private let commands: CurlCommandQueue
    /// Each running transfer's progress, for `CurlDataLoader.progress(of:)`: added
    /// when its first hop begins, removed when it ends or is cancelled.
    private let counters: Locked<[TransferID: TransferCounters]>
    private var transfersByID: [TransferID: CurlTransfer] = [:]
    private var transfersByHandle: [UnsafeMutableRawPointer: CurlTransfer] = [:]
    /// Hops whose host name `resolver` is looking up, not yet in the multi handle.
    private var awaitingNames = HopsAwaitingNames()
    private var resolvedNames = ResolvedNames()
    private let resolver: HostResolver
    private let clock = MonotonicClock()
    /// Bodies of transfers that stopped early, for the next start of each request.
    private var partialBodies: PartialBodies
    private var firstPassHints = FirstPassHints()

    /// How long curl_multi_poll sleeps when nothing happens; wake-ups and libcurl's
    /// own timers end the wait sooner, so this only bounds a lost wake-up.
    private static let idlePollMilliseconds: Int32 = 1000

    private typealias Batch = CurlCommandQueue.Batch
    private typealias Completion = @Sendable (TransferID, DataResponse) -> Void
    private typealias Finished = (id: TransferID, completion: Completion, response: DataResponse)

    /// - Parameter maxLookups: names looked up at once (`HostResolver`).
    init(multi: UnsafeMutableRawPointer, commands: CurlCommandQueue,
         counters: Locked<[TransferID: TransferCounters]>, maxLookups: Int, partialBodies: PartialBodies) {
        self.multi = multi
        self.commands = commands
        self.counters = counters
        self.partialBodies = partialBodies
        resolver = HostResolver(maxLookups: maxLookups) { name, addresses in
            commands.enqueueAnswer(.init(name: name, addresses: addresses))
        }
    }

    func run() {
        while true {
            var batch = commands.take()
            if batch.isStopping { break }
            var finished = apply(batch)
            commands.recycle(&batch.starts)
            var stillRunning: Int32 = 0
            _ = curl_multi_perform(multi, &stillRunning)
            finished += collectFinished()
            finished += stopQuietAtFirstPass()
            finished += expireOverdue()
            if !finished.isEmpty {
                counters.withLock { counters in
                    for done in finished { counters[done.id] = nil }
                }
            }
            for done in finished where commands.mayComplete(done.id) {
                done.completion(done.id, done.response)
            }
            _ = curl_multi_poll(multi, nil, 0, pollMilliseconds(), nil)
        }
        tearDown()
    }

    /// How long to sleep at most: until the first hop times out.
    private func pollMilliseconds() -> Int32 {
        var first = awaitingNames.earliestDeadline
        for transfer in transfersByID.values where transfer.pausedAt == nil {
            if let deadline = transfer.deadline { first = min(first ?? deadline, deadline) }
            if let check = transfer.stallCheck { first = min(first ?? check.by, check.by) }
            if let look = transfer.quietLookAt { first = min(first ?? look, look) }
        }
        guard let first else { return Self.idlePollMilliseconds }
        return Int32(clamping: max(0, min(Int64(Self.idlePollMilliseconds), first - clock.nowMilliseconds)))
    }

    /// Forgets, cancels and starts what was queued. Returns the starts that ended at
    /// once (a bad URL, no memory; or answered by a kept JPEG start), to be completed
    /// like any other finished transfer.
    private func apply(_ batch: Batch) -> [Finished] {
        var failed: [Finished] = []
        for url in batch.forgotten { partialBodies.forget(url) }
        if !batch.cancels.isEmpty {
            counters.withLock { counters in
                for id in batch.cancels { counters[id] = nil }
            }
        }
        for id in batch.cancels {
            let keeping = batch.keepingBytes.contains(id)
            if let transfer = transfersByID.removeValue(forKey: id) {
                if keeping { keepPartialBody(of: transfer) }
                detach(transfer)
            } else if let waiting = stopAwaitingName(id), keeping {
                keepPartialBody(waiting.hop.partial, of: waiting.hop)
            }
        }
        let now = clock.nowMilliseconds
        for start in batch.starts where !batch.cancels.contains(start.id) {
            func fail(_ error: LoaderError) {
                failed.append((start.id, start.completion, DataResponse(result: .failure(error), httpStatus: 0)))
            }
            // IDs are unique per loader; a reused live one would orphan its transfer.
            guard transfersByID[start.id] == nil, !awaitingNames.contains(start.id) else { fail(.misuse); continue }
            let progress = TransferCounters()
            var hop = CurlTransfer.Hop(start.request, startingAt: now)
            if !partialBodies.isEmpty { hop.partial = partialBodies.take(for: PartialBody.Key(start.request)) }
            if let key = FirstPassHints.Key(start.request) {
                hop.hintKey = key
                hop.firstRange = firstPassHints.firstRange(for: key)
                if let answer = hop.continueKeptStart() {
                    // The kept start holds the DC scans already: answered without the network.
                    if let partial = hop.partial { keepPartialBody(partial, of: hop) }
                    failed.append((start.id, start.completion, answer))
                    continue
                }
            }
            if let error = begin(start.id, hop, progress, start.completion) {
                fail(error)
            } else {
                counters.withLock { $0[start.id] = progress }
            }
        }
        for answer in batch.answers { failed += hopsDidGet(answer) }
        if batch.hasRoom { resumePaused() }
        return failed
    }

    /// Lets every transfer paused for budget room try again, the fullest first: the
    /// one nearest its end is the first that may take the lead.
    private func resumePaused() {
        let paused = transfersByID.values.filter { $0.pausedAt != nil }.sorted { $0.budgetCharge > $1.budgetCharge }
        let now = clock.nowMilliseconds
        for transfer in paused { transfer.resume(now: now) }
    }

    /// Starts one hop of a transfer: at once when libcurl needs no lookup or its
    /// name's addresses are known, else once `resolver` answers. The error to
    /// complete it with when that fails.
    private func begin(_ id: TransferID, _ hop: CurlTransfer.Hop, _ counters: TransferCounters,
                       _ completion: @escaping Completion) -> LoaderError? {
        // Never file://: libcurl's file handler blocks on a FIFO or a tty (LocalFileLoader
        // reads files). And no NUL inside, which would cut the C string short.
        guard URLCheck.isLoadable(hop.request.url, allowingFiles: false),
              let lookup = HostLookup(hop.request.url, proxy: hop.request.policy.proxy) else { return .badURL }
        let now = clock.nowMilliseconds
        guard case .name(let name, _) = lookup else {
            return add(id, hop, counters, completion, resolveEntry: nil, now: now)
        }
        if let addresses = resolvedNames.addresses(of: name, now: now) {
            return add(id, hop, counters, completion, resolveEntry: lookup.resolveEntry(addresses), now: now)
        }
        let waiting = HopsAwaitingNames.Waiting(hop: hop, counters: counters, completion: completion, lookup: lookup,
                                                name: name)
        if awaitingNames.add(id, waiting) { resolver.lookUp(name) }
        return nil
    }

    /// Makes, configures and adds the easy handle for one hop.
    private func add(_ id: TransferID, _ hop: CurlTransfer.Hop, _ counters: TransferCounters,
                     _ completion: @escaping Completion, resolveEntry: String?, now: Int64) -> LoaderError? {
        guard let transfer = CurlTransfer(id: id, hop: hop, counters: counters, completion: completion) else { return .noMemory }
        if let error = transfer.configure(resolveEntry: resolveEntry, now: now) { return error }
        guard curl_multi_add_handle(multi, transfer.easy) == CURLM_OK else { return .noMemory }
        hop.request.memoryBudget?.wakeWhenRoom(ObjectIdentifier(self)) { [commands] in commands.enqueueRoom() }
        transfersByID[id] = transfer
        transfersByHandle[transfer.easy] = transfer
        return nil
    }

    /// A name's answer: its waiting hops start, or fail when it does not resolve.
    private func hopsDidGet(_ answer: CurlCommandQueue.NameAnswer) -> [Finished] {
        let now = clock.nowMilliseconds
        // Kept even when nobody waits any more: the next row of the host needs it.
        if let addresses = answer.addresses { resolvedNames.insert(addresses, for: answer.name, now: now) }
        var failed: [Finished] = []
        for (id, waiting) in awaitingNames.answered(answer.name) {
            let error: LoaderError? = if let addresses = answer.addresses {
                add(id, waiting.hop, waiting.counters, waiting.completion,
                    resolveEntry: waiting.lookup.resolveEntry(addresses), now: now)
            } else {
                .network
            }
            if let error {
                failed.append((id, waiting.completion, DataResponse(result: .failure(error), httpStatus: 0,
                                                                     bytesReceived: waiting.hop.earlierBytes)))
            }
        }
        return failed
    }

    /// Hops whose time ran out: waiting for their name, or running (a paused one's
    /// deadline moves on when it resumes). Timed out here, not by libcurl, whose
    /// CURLOPT_TIMEOUT_MS would count the pauses.
    private func expireOverdue() -> [Finished] {
        let now = clock.nowMilliseconds
        var expired: [Finished] = []
        for id in awaitingNames.overdue(now: now) {
            guard let waiting = stopAwaitingName(id) else { continue }
            keepPartialBody(waiting.hop.partial, of: waiting.hop)
            expired.append((id, waiting.completion, DataResponse(result: .failure(.network), httpStatus: 0,
                                                                 bytesReceived: waiting.hop.earlierBytes)))
        }
        for (id, transfer) in transfersByID where transfer.pausedAt == nil {
            let overdue = transfer.deadline.map { $0 <= now } ?? false
            guard overdue || transfer.hasStalled(now: now) else { continue }
            transfersByID[id] = nil
            keepPartialBody(of: transfer)
            detach(transfer)
            expired.append((id, transfer.completion, transfer.response(finishedWith: CURLE_OPERATION_TIMEDOUT)))
        }
        return expired
    }

    /// Forgets a hop waiting for a name; a lookup nobody else waits for is
    /// withdrawn if it has not begun (one that runs still answers, for the cache).
    @discardableResult
    private func stopAwaitingName(_ id: TransferID) -> HopsAwaitingNames.Waiting? {
        guard let (waiting, unwanted) = awaitingNames.remove(id) else { return nil }
        if let unwanted, resolver.withdraw(unwanted) { awaitingNames.lookupWithdrawn(unwanted) }
        return waiting
    }

    /// Drains libcurl's DONE messages. Each finished easy handle is removed and freed
    /// here, before any completion runs, so its connection is back in the cache.
    private func collectFinished() -> [Finished] {
        var finished: [Finished] = []
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE,
                  let easy = message.pointee.easy_handle,
                  let transfer = transfersByHandle[easy] else { continue }
            let code = lazyimg_curl_msg_result(message)
            transfersByID.removeValue(forKey: transfer.id)
            detach(transfer)
            if let done = finish(transfer, transfer.outcome(finishedWith: code)) { finished.append(done) }
        }
        return finished
    }

    /// Watched bodies that went quiet past their first pass (CurlTransfer+FirstPassWatch):
    /// ended here, as no write callback comes to stop them.
    private func stopQuietAtFirstPass() -> [Finished] {
        let now = clock.nowMilliseconds
        var stopped: [Finished] = []
        for (id, transfer) in transfersByID where transfer.pausedAt == nil {
            guard let due = transfer.quietLookAt, due <= now, transfer.lookAfterQuiet(),
                  let outcome = transfer.firstPassOutcome(finishedWith: CURLE_OK) else { continue }
            transfersByID[id] = nil
            detach(transfer)
            if let done = finish(transfer, outcome) { stopped.append(done) }
        }
        return stopped
    }

    /// What a hop's end leads to: the transfer's answer, or nil when its next hop began.
    private func finish(_ transfer: CurlTransfer, _ outcome: CurlTransfer.Outcome) -> Finished? {
        switch outcome {
        case .finished(let response):
            // Cut off: a retry may ask for the rest.
            if case .failure(.network) = response.result { keepPartialBody(of: transfer) }
            learnFirstPass(of: transfer, from: response)
            return (transfer.id, transfer.completion, response)
        case .finishedLeaving(let response, let partial):
            // A start that served a small box: a larger one continues it.
            keepPartialBody(partial, of: transfer.hop)
            learnFirstPass(of: transfer, from: response)
            return (transfer.id, transfer.completion, response)
        case .next(let next):
            // A start the box needs the whole file after: the origin's next files
            // come whole from now, not once this one's rest has come.
            if next.request.firstPassBox == nil, transfer.hop.request.firstPassBox != nil,
               let key = transfer.hop.hintKey {
                firstPassHints.learn(key, firstPassEnd: nil, servesRanges: transfer.servesRanges)
            }
            // The next hop keeps the transfer's ID, so a cancel still reaches it.
            guard let error = begin(transfer.id, next, transfer.counters, transfer.completion) else { return nil }
            return (transfer.id, transfer.completion,
                    DataResponse(result: .failure(error), httpStatus: 0,
                                 bytesReceived: next.earlierBytes.addingClamped(next.continuedBytes)))
        }
    }

    /// What a body fetched for a box that may need only DC scans says of them, for the
    /// next requests to its origin.
    private func learnFirstPass(of transfer: CurlTransfer, from response: DataResponse) {
        guard let key = transfer.hop.hintKey, case .success(let body) = response.result else { return }
        firstPassHints.learn(key, body: body, servesRanges: transfer.servesRanges)
    }

    /// Keeps the start of a stopped transfer's body for the next start of its request.
    private func keepPartialBody(of transfer: CurlTransfer) {
        keepPartialBody(transfer.takePartialBody(), of: transfer.hop)
    }

    private func keepPartialBody(_ partial: PartialBody?, of hop: CurlTransfer.Hop) {
        guard let partial else { return }
        var request = hop.request
        request.url = hop.firstURL
        partialBodies.keep(partial, for: PartialBody.Key(request))
    }

    /// Takes a transfer out of the multi handle; dropping the last reference then
    /// cleans up its easy handle (and closes a connection still mid-response).
    private func detach(_ transfer: CurlTransfer) {
        transfersByHandle.removeValue(forKey: transfer.easy)
        _ = curl_multi_remove_handle(multi, transfer.easy)
        transfer.releaseBudget()
    }

    private func tearDown() {
        resolver.stop()
        for transfer in transfersByID.values {
            detach(transfer)
        }
        transfersByID = [:]
        awaitingNames.removeAll()
        counters.withLock { $0.removeAll() }
        curl_multi_cleanup(multi)
    }
}
