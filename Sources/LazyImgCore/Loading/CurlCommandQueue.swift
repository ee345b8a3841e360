import CCurl

/// What other threads ask of the network thread, handed over under one mutex.
///
/// Callers never touch curl handles: they append here and wake the thread with
/// curl_multi_wakeup, the one multi call libcurl allows from any thread. The wake-up
/// happens under the mutex and stops for good once `requestStop` ran, so the network
/// thread may clean up the multi handle as soon as it sees the stop.
final class CurlCommandQueue: Sendable {
    struct Start: Sendable {
        let id: TransferID
        let request: DataRequest
        let completion: @Sendable (TransferID, DataResponse) -> Void
    }

    /// A `HostResolver`'s answer for a name the network thread asked it for.
    struct NameAnswer: Sendable {
        let name: String
        /// nil: the name does not resolve.
        let addresses: [String]?
    }

    /// Everything queued since the network thread last looked.
    struct Batch {
        var starts: [Start] = []
        var cancels: Set<TransferID> = []
        /// Those of `cancels` whose partial bodies may be kept.
        var keepingBytes: Set<TransferID> = []
        var answers: [NameAnswer] = []
        /// URLs whose kept partial bodies go (nil: all of them), before any start.
        var forgotten: [ImageURL?] = []
        /// A download budget got bytes back: paused transfers may go on.
        var hasRoom = false
        var isStopping = false

        /// Nothing queued since the last `take`. Only the first command of a batch
        /// wakes the network thread (a write to libcurl's wake-up socket, a syscall
        /// the host thread paid per start and cancel): a wake-up stays pending until
        /// curl_multi_poll sees it, and the thread takes the whole batch when it wakes.
        var isEmpty: Bool { starts.isEmpty && cancels.isEmpty && answers.isEmpty && forgotten.isEmpty && !hasRoom }
    }

    // @unchecked for the raw multi pointer: through it, other threads only ever call
    // curl_multi_wakeup, and only under the mutex.
    private struct State: @unchecked Sendable {
        var pending = Batch()
        /// Emptied storage for the next batch's starts (`recycle`), so queueing a
        /// start does not grow a fresh array for every batch.
        var spareStarts: [Start] = []
        /// nil once stopping: nobody may wake a multi handle that is being cleaned up.
        var multiToWake: UnsafeMutableRawPointer?
    }

    private let state: Locked<State>

    init(multi: UnsafeMutableRawPointer) {
        state = Locked(State(multiToWake: multi))
    }

    /// Dropped silently after a stop: a stopped loader promises no more completions.
    func enqueueStart(_ start: Start) {
        state.withLock { state in
            guard let multi = state.multiToWake else { return }
            if state.pending.isEmpty { curl_multi_wakeup(multi) }
            state.pending.starts.append(start)
        }
    }

    /// `keepingBytes`: the start of the body may be kept for a later start.
    func enqueueCancel(_ id: TransferID, keepingBytes: Bool) {
        state.withLock { state in
            guard let multi = state.multiToWake else { return }
            if state.pending.isEmpty { curl_multi_wakeup(multi) }
            state.pending.cancels.insert(id)
            if keepingBytes { state.pending.keepingBytes.insert(id) } else { state.pending.keepingBytes.remove(id) }
        }
    }

    /// The host forgot `url` (nil: everything): its kept bytes must not answer again.
    func enqueueForget(_ url: ImageURL?) {
        state.withLock { state in
            guard let multi = state.multiToWake else { return }
            if state.pending.isEmpty { curl_multi_wakeup(multi) }
            state.pending.forgotten.append(url)
        }
    }

    /// From a lookup thread; dropped after a stop.
    func enqueueAnswer(_ answer: NameAnswer) {
        state.withLock { state in
            guard let multi = state.multiToWake else { return }
            if state.pending.isEmpty { curl_multi_wakeup(multi) }
            state.pending.answers.append(answer)
        }
    }

    /// From any thread, when a download budget got bytes back; dropped after a stop.
    func enqueueRoom() {
        state.withLock { state in
            guard let multi = state.multiToWake else { return }
            if state.pending.isEmpty { curl_multi_wakeup(multi) }
            state.pending.hasRoom = true
        }
    }

    /// Asks the network thread to stop. Safe to call any number of times.
    func requestStop() {
        state.withLock { state in
            guard let multi = state.multiToWake else { return }
            state.pending.isStopping = true
            curl_multi_wakeup(multi)
            state.multiToWake = nil
        }
    }

    /// Network thread: takes the queued commands. The stop flag stays set.
    func take() -> Batch {
        state.withLock { state in
            var batch = Batch(isStopping: state.pending.isStopping)
            swap(&batch.starts, &state.spareStarts)
            swap(&batch.starts, &state.pending.starts)
            swap(&batch.cancels, &state.pending.cancels)
            swap(&batch.keepingBytes, &state.pending.keepingBytes)
            swap(&batch.answers, &state.pending.answers)
            swap(&batch.forgotten, &state.pending.forgotten)
            swap(&batch.hasRoom, &state.pending.hasRoom)
            return batch
        }
    }

    /// Network thread: hands back a taken batch's starts, done with, for their storage.
    func recycle(_ starts: inout [Start]) {
        starts.removeAll(keepingCapacity: true)
        state.withLock { state in
            if state.spareStarts.capacity < starts.capacity { swap(&state.spareStarts, &starts) }
        }
    }

    /// Network thread, just before calling a completion: false when the transfer was
    /// cancelled since the last `take`, or the loader is stopping. The check and the
    /// cancel share the mutex, so a `cancel` that returned before it wins.
    func mayComplete(_ id: TransferID) -> Bool {
        state.withLock { state in
            !state.pending.isStopping && !state.pending.cancels.contains(id)
        }
    }
}
