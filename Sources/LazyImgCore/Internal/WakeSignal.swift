import CLazyImgSupport
import Glibc
import Synchronization

/// How other threads wake one worker thread that sleeps while it has nothing to do,
/// coalesced as libuv's `uv_async_send` is: the first wake after the worker last
/// woke writes to an eventfd, and every other one until the worker wakes costs an
/// atomic exchange and nothing else.
///
/// The worker says how it sleeps. `napping`: it looks again within a few
/// milliseconds anyway, so a caller with nothing urgent leaves it be (no system
/// call at all). `sleeping`: until woken or its own deadline. A caller asks to wake
/// it if it sleeps, or also if it naps (`urgent`).
///
/// No lock: the caller's announcement (its push into an `Inbox`) and the worker's
/// (its `mode`) are sequentially consistent, and each then reads the other's, so
/// either the caller sees the worker about to sleep and writes the eventfd, or the
/// worker sees the work before it sleeps.
final class WakeSignal: Sendable {
    enum Mode: UInt8 {
        case running, napping, sleeping
    }

    private let mode = Atomic<UInt8>(Mode.running.rawValue)
    /// A write to the eventfd since the worker last woke.
    private let pending = Atomic<Bool>(false)
    private let fd: Int32
    /// Writes to the eventfd so far: what the wakes cost in system calls (tests).
    let signalsSent = Atomic<UInt64>(0)
    /// The worker is in its poll, asleep until woken or its deadline, with no wake
    /// on its way: set only once `hasWork` found nothing and no caller has written,
    /// so a test that sees it knows the next caller writes.
    private let blocked = Atomic<Bool>(false)

    /// nil when the system refuses an eventfd.
    init?() {
        let fd = lazyimg_eventfd_open()
        guard fd >= 0 else { return nil }
        self.fd = fd
    }

    deinit {
        close(fd)
    }

    /// After pushing work: wakes the worker if it sleeps, or also if it naps when
    /// `urgent`. Returns whether this call made the system call.
    @discardableResult
    func wake(urgent: Bool) -> Bool {
        let current = mode.load(ordering: .sequentiallyConsistent)
        guard current == Mode.sleeping.rawValue || (urgent && current == Mode.napping.rawValue) else { return false }
        guard !pending.exchange(true, ordering: .sequentiallyConsistent) else { return false }
        lazyimg_eventfd_signal(fd)
        signalsSent.add(1, ordering: .relaxed)
        return true
    }

    /// Whether the worker sleeps until woken or its deadline (tests wait for it).
    var isSleeping: Bool { blocked.load(ordering: .sequentiallyConsistent) }

    /// The worker: sleeps as `how` for at most `milliseconds` (nil = until woken),
    /// unless `hasWork` finds work once the mode is announced.
    func sleep(_ how: Mode, milliseconds: Int64?, unless hasWork: () -> Bool) {
        mode.store(how.rawValue, ordering: .sequentiallyConsistent)
        guard !hasWork() else {
            mode.store(Mode.running.rawValue, ordering: .sequentiallyConsistent)
            return
        }
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        if how == .sleeping && !pending.load(ordering: .sequentiallyConsistent) {
            blocked.store(true, ordering: .sequentiallyConsistent)
        }
        _ = poll(&descriptor, 1, milliseconds.map { Int32(clamping: max(0, $0)) } ?? -1)
        if how == .sleeping { blocked.store(false, ordering: .sequentiallyConsistent) }
        if descriptor.revents & Int16(POLLIN) != 0 { lazyimg_eventfd_drain(fd) }
        // Running before the last wake is forgotten: a caller in between sees the
        // worker awake and writes nothing, where the other order let it write a
        // second time for a worker already on its way.
        mode.store(Mode.running.rawValue, ordering: .sequentiallyConsistent)
        pending.store(false, ordering: .sequentiallyConsistent)
    }
}
