import CLazyImgSupport
import Glibc

/// A joinable POSIX thread running one closure.
///
/// The loader's threads (network, decode, delivery) are plain threads rather than
/// Swift concurrency tasks: they block in curl_multi_poll or on a condition, which
/// must never happen on the cooperative pool.
public final class NativeThread: @unchecked Sendable {
    // Written once in init, read by join: no race.
    private var handle = pthread_t()
    private var joined = false

    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// How a thread's work ranks against the host's own threads.
    public enum Priority: Sendable {
        /// As the thread that made it: work that runs briefly and that the host waits
        /// on (its callbacks, timers, the network thread). Lowered, a
        /// thread holding a lock the UI thread takes can be preempted while the UI
        /// waits; see docs/threading.md.
        case host
        /// As `host`, but SCHED_BATCH: woken (a nap's timer, a completion, the host's
        /// call), the thread waits for the running thread's time slice instead of
        /// preempting it, so a UI thread mid-frame keeps its core. Its share of the
        /// CPU and its nice value stay the creator's (the scheduler thread).
        case hostNonpreempting
        /// Below it, at nice +10 (Android's THREAD_PRIORITY_BACKGROUND): work that can
        /// use a whole core (decoding, reading files). When the UI thread wakes for a
        /// frame it gets a core at once instead of sharing one with a decode. Also
        /// SCHED_BATCH: a worker the host wakes (a frame job queued) does not preempt
        /// it, which made the frame calls wait out a worker's time slice
        /// (bench-animation's 16 MiB run, host p99 3-6 ms against 0.2-0.7 ms).
        case background

        /// How far `background` lowers a thread: nice 0 gets about 10 times the CPU
        /// of nice 10 when they compete (the kernel's weights 1024 and 110).
        static let backgroundNiceSteps: Int32 = 10
    }

    /// Returns nil when the system refuses a new thread.
    public init?(name: String, priority: Priority = .host, _ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Body {
            lazyimg_thread_set_name(name)
            // A thread left at the host's priority still works; only the ranking is lost.
            switch priority {
            case .host: break
            case .hostNonpreempting: _ = lazyimg_thread_set_batch()
            case .background: _ = lazyimg_thread_lower_priority(Priority.backgroundNiceSteps)
            }
            body()
        }).toOpaque()
        let rc = lazyimg_thread_create_without_signals(&handle, { raw in
            // Always the box passed below.
            guard let raw else { return nil }
            Unmanaged<Body>.fromOpaque(raw).takeRetainedValue().run()
            return nil
        }, box)
        guard rc == 0 else {
            Unmanaged<Body>.fromOpaque(box).release()
            return nil
        }
    }

    /// Waits for the closure to return; idempotent. Called from the thread itself (the
    /// last reference to its owner dropped inside its own work), it cannot wait for
    /// itself: it detaches instead, so the thread's resources go when it returns.
    public func join() {
        guard !joined else { return }
        joined = true
        if isCurrent {
            pthread_detach(handle)
        } else {
            pthread_join(handle, nil)
        }
    }

    /// Lets the thread run on unwaited for: its resources go when it returns. For work
    /// that may block for good (a name lookup), which nobody may wait on.
    public func detach() {
        guard !joined else { return }
        joined = true
        pthread_detach(handle)
    }

    /// Whether the caller is running on this thread.
    public var isCurrent: Bool {
        pthread_equal(pthread_self(), handle) != 0
    }
}
