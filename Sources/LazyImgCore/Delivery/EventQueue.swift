import CLazyImgSupport
import Glibc
import Synchronization

/// Completed events waiting for delivery, in completion order.
///
/// In host delivery an eventfd mirrors the queue: readable exactly while the queue is
/// non-empty (signalled on the first push, drained when the last event is taken, both
/// under the queue's lock), so a host polling it never loses a wake-up.
///
/// The mirroring starts when the host first asks for the fd (`armedFD`). A host that
/// never polls it (it dispatches once a frame) then pays no system call per event:
/// before, its own calls (a row that left cancels its ticket) and its dispatch wrote
/// and read the fd in nearly every fling frame of the scroll benchmark, and on a
/// 2-core KVM guest the first system call after a 16 ms sleep measured 4 us at p50
/// and 20 us at p99.
final class EventQueue: @unchecked Sendable {
    // Everything below is guarded by `condition`. Its `var`s go unchecked by
    // Swift's run-time exclusivity enforcement, as `Locked`'s state does: the lock
    // already makes each access exclusive, and the checks were the only calls into
    // the run-time's access tracking (a thread-local lookup each) left in a frame's
    // dispatch, six per take.
    private let condition = Condition()
    @exclusivity(unchecked) private var events: [LoaderEvent] = []
    /// An emptied array whose storage the next batch reuses (`recycle`): a take of
    /// every waiting event hands out `events` itself and puts this in its place, so
    /// a dispatch neither copies the events nor allocates (in callgrind that copy
    /// was most of a cold dispatch's cache misses).
    @exclusivity(unchecked) private var spare: [LoaderEvent] = []
    @exclusivity(unchecked) private var head = 0
    @exclusivity(unchecked) private var closed = false
    /// -1 when there is no fd (thread delivery).
    private let fd: Int32
    /// The host has the fd: from then on it mirrors the queue.
    @exclusivity(unchecked) private var fdArmed = false
    /// `waiting`, readable without the lock; stored with it held.
    private let waitingHint = Atomic<Int>(0)

    /// `withFD`: make the eventfd for host delivery. Returns nil if that fails.
    init?(withFD: Bool) {
        if withFD {
            let fd = lazyimg_eventfd_open()
            guard fd >= 0 else { return nil }
            self.fd = fd
        } else {
            fd = -1
        }
    }

    deinit {
        if fd >= 0 { Glibc.close(fd) }
    }

    private var waiting: Int { events.count - head }

    /// Whether events may wait, without the lock: false only if none waited a moment
    /// ago. An event pushed meanwhile is taken by the next take (and a host polling
    /// the fd is woken for it).
    var mayHaveEvents: Bool { waitingHint.load(ordering: .acquiring) > 0 }

    /// The fd for the host's poll loop (-1 without one), mirroring the queue from now
    /// on: readable at once if events already wait.
    func armedFD() -> Int32 {
        condition.locked {
            if fd >= 0 && !fdArmed {
                fdArmed = true
                if waiting > 0 { lazyimg_eventfd_signal(fd) }
            }
            return fd
        }
    }

    func push(_ event: LoaderEvent) {
        push(contentsOf: CollectionOfOne(event))
    }

    /// Appends `batch` in one hold of the lock, with at most one write to the fd.
    func push(contentsOf batch: some Collection<LoaderEvent>) {
        guard !batch.isEmpty else { return }
        condition.locked {
            let wasEmpty = waiting == 0
            events.append(contentsOf: batch)
            waitingHint.store(waiting, ordering: .releasing)
            // After the hint: a host woken by the fd may dispatch at once, and a
            // dispatch that read the hint as 0 would return without the event.
            if wasEmpty, fdArmed { lazyimg_eventfd_signal(fd) }
            condition.broadcast()
        }
    }

    /// Takes up to `max` events (0 = all waiting now) without blocking.
    func take(max: Int) -> [LoaderEvent] {
        condition.locked { _take(max: max) }
    }

    private func _take(max: Int) -> [LoaderEvent] {
        defer { waitingHint.store(waiting, ordering: .releasing) }
        let n = max <= 0 ? waiting : Swift.min(max, waiting)
        guard n > 0 else { return [] }
        if head == 0 && n == events.count {
            var batch: [LoaderEvent] = []
            swap(&batch, &spare)
            swap(&batch, &events)
            if fdArmed { lazyimg_eventfd_drain(fd) }
            return batch
        }
        let batch = Array(events[head..<head + n])
        head += n
        if head == events.count {
            events.removeAll(keepingCapacity: true)
            head = 0
            if fdArmed { lazyimg_eventfd_drain(fd) }
        } else if head > 1024 {
            events.removeFirst(head)
            head = 0
        }
        return batch
    }

    /// Takes back a batch whose events have run: they are released here, outside
    /// the lock, and the storage is kept for the next batch.
    func recycle(_ batch: inout [LoaderEvent]) {
        batch.removeAll(keepingCapacity: true)
        guard batch.capacity > 0 else { return }
        condition.locked {
            if spare.capacity < batch.capacity { swap(&spare, &batch) }
        }
    }

    /// Blocks until an event waits or `milliseconds` pass (negative = no limit).
    /// Returns whether events wait.
    func waitForEvents(milliseconds: Int) -> Bool {
        condition.locked {
            if milliseconds < 0 {
                while waiting == 0 && !closed { condition.wait() }
                return waiting > 0
            }
            var now = MonotonicClock().nowMilliseconds
            let deadline = now + Int64(milliseconds)
            while waiting == 0 && !closed && now < deadline {
                _ = condition.wait(milliseconds: Int(deadline - now))
                now = MonotonicClock().nowMilliseconds
            }
            return waiting > 0
        }
    }

    /// For the delivery thread: blocks until events wait, and takes them all; an empty
    /// result means the queue was closed and drained.
    func takeAllBlocking() -> [LoaderEvent] {
        condition.locked {
            while waiting == 0 && !closed { condition.wait() }
            return _take(max: 0)
        }
    }

    /// Wakes blocked waiters for good; events already queued can still be taken.
    func close() {
        condition.locked {
            closed = true
            condition.broadcast()
        }
    }
}
