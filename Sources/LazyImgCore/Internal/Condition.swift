import Glibc

/// A mutex with one condition variable, for the worker threads that sleep until work
/// arrives. (Synchronization.Mutex has no condition variable.)
public final class Condition: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let cond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    public init() {
        pthread_mutex_init(mutex, nil)
        var attr = pthread_condattr_t()
        pthread_condattr_init(&attr)
        // Timed waits measure the monotonic clock, immune to wall-clock jumps.
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC)
        pthread_cond_init(cond, &attr)
        pthread_condattr_destroy(&attr)
    }

    deinit {
        pthread_cond_destroy(cond)
        pthread_mutex_destroy(mutex)
        cond.deallocate()
        mutex.deallocate()
    }

    /// Runs `body` with the mutex held.
    public func locked<T>(_ body: () throws -> T) rethrows -> T {
        #if DEBUG
        LockProbe.lock(mutex)
        #else
        pthread_mutex_lock(mutex)
        #endif
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Runs `body` with the mutex held if it is free now; nil when another thread
    /// holds it (for a caller that must not wait on a lower-priority thread).
    public func lockedIfFree<T>(_ body: () throws -> T) rethrows -> T? {
        guard pthread_mutex_trylock(mutex) == 0 else { return nil }
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// With the mutex held: sleeps until signalled (spurious wake-ups possible, so
    /// callers loop on their predicate).
    public func wait() {
        pthread_cond_wait(cond, mutex)
    }

    /// With the mutex held: as `wait`, for at most `milliseconds`. Returns false on timeout.
    public func wait(milliseconds: Int) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let nanos = Int(deadline.tv_nsec) + (milliseconds % 1000) * 1_000_000
        deadline.tv_sec += milliseconds / 1000 + nanos / 1_000_000_000
        deadline.tv_nsec = nanos % 1_000_000_000
        return pthread_cond_timedwait(cond, mutex, &deadline) == 0
    }

    public func signal() { pthread_cond_signal(cond) }
    public func broadcast() { pthread_cond_broadcast(cond) }
}
