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

    /// Returns nil when the system refuses a new thread.
    public init?(name: String, _ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Body {
            lazyimg_thread_set_name(name)
            body()
        }).toOpaque()
        let rc = pthread_create(&handle, nil, { raw in
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

    /// Whether the caller is running on this thread.
    public var isCurrent: Bool {
        pthread_equal(pthread_self(), handle) != 0
    }
}
