/// A fixed set of worker threads, each with its own decoder, taking jobs by priority:
/// a loader's decodes, its disk-cache reads and writes, and the scan that counts what
/// the disk cache holds.
///
/// Each of those blocks a thread for milliseconds to seconds, so they run on plain
/// threads rather than Swift concurrency's small cooperative pool, below the host's
/// priority. Each thread makes its own decoder (they are not Sendable: a TurboJPEG
/// handle belongs to one thread) and hands it to every job it runs; a disk read
/// decodes the original it found with it.
public final class WorkerPool: Sendable {
    public typealias Job = @Sendable (any ImageDecoding) -> Void

    /// What the workers and the pool share, under `condition`'s mutex. Idle workers
    /// sleep on `wakeups`, one count a job queued (and one a worker at shutdown), so
    /// queueing from the host's thread never waits on a worker (see `Semaphore`).
    private final class State: @unchecked Sendable {
        let condition = Condition()
        let wakeups = Semaphore()
        let workers: Int
        // Guarded by condition's mutex.
        var queue = WorkerJobQueue()
        var stopping = false
        var joined = false

        init(workers: Int) {
            self.workers = workers
        }
    }

    private let state: State
    private let threads: [NativeThread]

    /// Starts `threads` workers (at least one). Returns nil when the system refuses a
    /// thread; those already started are stopped first.
    public init?(threads count: Int, makeDecoder: @escaping @Sendable () -> any ImageDecoding) {
        let state = State(workers: max(1, count))
        self.state = state
        var started: [NativeThread] = []
        for index in 0..<max(1, count) {
            guard let thread = NativeThread(name: "lazyimg-work\(index)", priority: .background, {
                Self.work(state, decoder: makeDecoder())
            }) else {
                Self.stop(state, threads: started)
                return nil
            }
            started.append(thread)
        }
        threads = started
    }

    deinit {
        shutdown()
    }

    /// Queues `job` to run on a worker with that worker's decoder. Lower `priority`
    /// values run first; equal ones in the order submitted. Returns false (and drops
    /// the job) once shutdown has begun.
    @discardableResult
    public func submit(priority: Int, _ job: @escaping Job) -> Bool {
        let queued = state.condition.locked {
            guard !state.stopping else { return false }
            state.queue.push(priority: priority, job)
            return true
        }
        if queued { state.wakeups.signal() }
        return queued
    }

    /// As `submit`, unless a worker holds the queue's lock at this moment: nil then,
    /// and nothing is queued. For the host's thread, which must not wait on a decode
    /// thread (they run at a lower priority, and can be kept off the CPU while they
    /// hold it).
    public func submitIfFree(priority: Int, _ job: @escaping Job) -> Bool? {
        let queued = state.condition.lockedIfFree {
            guard !state.stopping else { return false }
            state.queue.push(priority: priority, job)
            return true
        }
        if queued == true { state.wakeups.signal() }
        return queued
    }

    /// The jobs waiting for a worker.
    public var queuedCount: Int {
        state.condition.locked { state.queue.count }
    }

    /// Stops taking jobs and drops every queued one that has not started; returns at
    /// once. Lets an owner stop several stages before waiting for any of them.
    public func beginShutdown() {
        state.condition.locked { Self._beginShutdown(state) }
    }

    /// `beginShutdown`, then waits for the running jobs to finish and joins the
    /// threads. Idempotent; must not be called from a job.
    public func shutdown() {
        Self.stop(state, threads: threads)
    }

    private static func stop(_ state: State, threads: [NativeThread]) {
        let mustJoin = state.condition.locked {
            _beginShutdown(state)
            defer { state.joined = true }
            return !state.joined
        }
        guard mustJoin else { return }
        for thread in threads {
            thread.join()
        }
    }

    /// With the mutex held.
    private static func _beginShutdown(_ state: State) {
        guard !state.stopping else { return }
        state.stopping = true
        state.queue.removeAll()
        for _ in 0..<state.workers { state.wakeups.signal() }
    }

    private static func work(_ state: State, decoder: any ImageDecoding) {
        while true {
            let (job, stop): (Job?, Bool) = state.condition.locked {
                state.stopping ? (nil, true) : (state.queue.pop(), false)
            }
            if stop { return }
            // Nothing queued: sleep until a job (or shutdown) adds a count. A count
            // left by a job another worker took only makes this look again.
            if let job { job(decoder) } else { state.wakeups.wait() }
        }
    }
}
