import Glibc

/// A value guarded by a pthread mutex; `withLock` is the only way in.
///
/// Synchronization.Mutex would serve, but on Linux it locks with raw futex calls that
/// ThreadSanitizer cannot see, so a TSan run reported every guarded access as a race.
/// pthread mutexes are intercepted by the sanitizers, which keeps their reports true.
public final class Locked<State>: @unchecked Sendable {
    // @unchecked: `state` is only touched inside withLock, with `mutex` held.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// Behind a pointer rather than a `var`: the mutex already makes access exclusive,
    /// and a class `var` adds Swift's run-time exclusivity check to every call (two
    /// thread-local lookups, a tenth of a memory hit).
    private let state: UnsafeMutablePointer<State>

    /// The state starts on the mutex's cache line, in one block with it: a call that
    /// locks reads the state's first fields with the line it takes the lock on, not
    /// from an allocation of their own (what a host's request reads of the front,
    /// `LoaderFront`, comes first).
    private static var stateOffset: Int {
        let alignment = MemoryLayout<State>.alignment
        return (MemoryLayout<pthread_mutex_t>.size + alignment - 1) / alignment * alignment
    }

    public init(_ state: State) {
        let block = UnsafeMutableRawPointer.allocate(byteCount: Self.stateOffset + MemoryLayout<State>.size,
                                                     alignment: max(64, MemoryLayout<State>.alignment))
        mutex = block.bindMemory(to: pthread_mutex_t.self, capacity: 1)
        self.state = (block + Self.stateOffset).bindMemory(to: State.self, capacity: 1)
        self.state.initialize(to: state)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        state.deinitialize(count: 1)
        UnsafeMutableRawPointer(mutex).deallocate()
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
