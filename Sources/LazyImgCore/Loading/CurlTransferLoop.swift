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

    /// How long curl_multi_poll sleeps when nothing happens; wake-ups and libcurl's
    /// own timers end the wait sooner, so this only bounds a lost wake-up.
    private static let idlePollMilliseconds: Int32 = 1000

    private typealias Batch = CurlCommandQueue.Batch
    private typealias Finished = (id: TransferID, completion: @Sendable (TransferID, DataResponse) -> Void,
                                  response: DataResponse)

    init(multi: UnsafeMutableRawPointer, commands: CurlCommandQueue,
         counters: Locked<[TransferID: TransferCounters]>) {
        self.multi = multi
        self.commands = commands
        self.counters = counters
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
            if !finished.isEmpty {
                counters.withLock { counters in
                    for done in finished { counters[done.id] = nil }
                }
            }
            for done in finished where commands.mayComplete(done.id) {
                done.completion(done.id, done.response)
            }
            _ = curl_multi_poll(multi, nil, 0, Self.idlePollMilliseconds, nil)
        }
        tearDown()
    }

    /// Starts and cancels what was queued. Returns the starts that failed at once
    /// (bad URL, no memory), to be completed like any other finished transfer.
    private func apply(_ batch: Batch) -> [Finished] {
        var failed: [Finished] = []
        if !batch.cancels.isEmpty {
            counters.withLock { counters in
                for id in batch.cancels { counters[id] = nil }
            }
        }
        for id in batch.cancels {
            guard let transfer = transfersByID.removeValue(forKey: id) else { continue }
            detach(transfer)
        }
        for start in batch.starts where !batch.cancels.contains(start.id) {
            func fail(_ error: LoaderError) {
                failed.append((start.id, start.completion, DataResponse(result: .failure(error), httpStatus: 0)))
            }
            // IDs are unique per loader; a reused live one would orphan its transfer.
            guard transfersByID[start.id] == nil else { fail(.misuse); continue }
            let progress = TransferCounters()
            if let error = begin(start.id, CurlTransfer.Hop(start.request), progress, start.completion) {
                fail(error)
            } else {
                counters.withLock { $0[start.id] = progress }
            }
        }
        return failed
    }

    /// Makes, configures and adds the easy handle for one hop of a transfer; the error
    /// to complete it with when that fails.
    private func begin(_ id: TransferID, _ hop: CurlTransfer.Hop, _ counters: TransferCounters,
                       _ completion: @escaping @Sendable (TransferID, DataResponse) -> Void) -> LoaderError? {
        guard let transfer = CurlTransfer(id: id, hop: hop, counters: counters, completion: completion) else { return .noMemory }
        if let error = transfer.configure() { return error }
        guard curl_multi_add_handle(multi, transfer.easy) == CURLM_OK else { return .noMemory }
        transfersByID[id] = transfer
        transfersByHandle[transfer.easy] = transfer
        return nil
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
            switch transfer.outcome(finishedWith: code) {
            case .finished(let response):
                finished.append((transfer.id, transfer.completion, response))
            case .redirect(let next):
                // The next hop keeps the transfer's ID, so a cancel still reaches it.
                if let error = begin(transfer.id, next, transfer.counters, transfer.completion) {
                    finished.append((transfer.id, transfer.completion,
                                     DataResponse(result: .failure(error), httpStatus: 0, bytesReceived: next.earlierBytes)))
                }
            }
        }
        return finished
    }

    /// Takes a transfer out of the multi handle; dropping the last reference then
    /// cleans up its easy handle (and closes a connection still mid-response).
    private func detach(_ transfer: CurlTransfer) {
        transfersByHandle.removeValue(forKey: transfer.easy)
        _ = curl_multi_remove_handle(multi, transfer.easy)
    }

    private func tearDown() {
        for transfer in transfersByID.values {
            detach(transfer)
        }
        transfersByID = [:]
        counters.withLock { $0.removeAll() }
        curl_multi_cleanup(multi)
    }
}
