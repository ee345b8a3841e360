#if DEBUG
import Glibc
import Synchronization

/// Debug builds: the locks one watched thread takes, and how many of those another
/// thread held at that moment. The test that a UI thread's per-frame calls never
/// wait on a lock a background thread holds watches the thread that makes them
/// (`Locked` and `Condition` lock through here). Release builds lock directly.
enum LockProbe {
    /// The watched thread's `pthread_t`; 0 = none.
    private static let watched = Atomic<UInt>(0)
    private static let taken = Atomic<UInt64>(0)
    private static let found = Atomic<UInt64>(0)

    /// Counts from now on the locks the calling thread takes; `stop` ends it.
    static func watchCallingThread() {
        taken.store(0, ordering: .relaxed)
        found.store(0, ordering: .relaxed)
        watched.store(UInt(pthread_self()), ordering: .releasing)
    }

    static func stop() { watched.store(0, ordering: .releasing) }

    /// Locks the watched thread took, and how many of them it found held.
    static var acquisitions: UInt64 { taken.load(ordering: .acquiring) }
    static var contended: UInt64 { found.load(ordering: .acquiring) }

    @inline(__always)
    static func lock(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
        guard watched.load(ordering: .relaxed) == UInt(pthread_self()) else {
            pthread_mutex_lock(mutex)
            return
        }
        taken.add(1, ordering: .relaxed)
        guard pthread_mutex_trylock(mutex) != 0 else { return }
        found.add(1, ordering: .relaxed)
        pthread_mutex_lock(mutex)
    }
}
#endif
