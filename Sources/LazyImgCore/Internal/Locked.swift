import Glibc
import Synchronization

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
    /// How many times the lock was taken; written only with it held.
    private let taken = Atomic<UInt64>(0)

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
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        // Counted on entry: whatever `body` publishes with a release store is seen
        // only together with this count or a later one.
        taken.store(taken.load(ordering: .relaxed) &+ 1, ordering: .releasing)
        return try body(&state.pointee)
    }

    /// How many times the lock has been taken so far, without taking it: the same
    /// count as one read before means nothing touched the state since (not even a
    /// reader), so what was true of the state then still is. Inside `withLock`, it
    /// counts the current hold.
    public var timesTaken: UInt64 { taken.load(ordering: .acquiring) }
}
