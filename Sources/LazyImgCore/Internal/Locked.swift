import Glibc

/// A value guarded by a pthread mutex; `withLock` is the only way in.
///
/// Synchronization.Mutex would serve, but on Linux it locks with raw futex calls that
/// ThreadSanitizer cannot see, so a TSan run reported every guarded access as a race.
/// pthread mutexes are intercepted by the sanitizers, which keeps their reports true.
public final class Locked<State>: @unchecked Sendable {
    // @unchecked: `state` is only touched inside withLock, with `mutex` held.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    /// Behind a pointer rather than a `var`: the mutex already makes access exclusive,
    /// and a class `var` adds Swift's run-time exclusivity check to every call (two
    /// thread-local lookups, a tenth of a memory hit).
    private let state = UnsafeMutablePointer<State>.allocate(capacity: 1)

    public init(_ state: State) {
        self.state.initialize(to: state)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    public func withLock<Result, Failure: Error>(
        _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        #if DEBUG
        LockProbe.lock(mutex)
        #else
        pthread_mutex_lock(mutex)
        #endif
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state.pointee)
    }
}
