import CLazyImgSupport
import Synchronization

/// Runs the host's callback for each event: on the host's thread when it dispatches
/// (host delivery) or on one internal thread (thread delivery). Never with a loader
/// lock held, so a callback may call back into the loader.
final class EventDelivery: Sendable {
    let mode: DeliveryMode
    let queue: EventQueue
    private let handler: @Sendable (LoaderEvent) -> Void
    private let thread = Locked<NativeThread?>(nil)
    let delivered = Atomic<UInt64>(0)

    init?(mode: DeliveryMode, handler: @escaping @Sendable (LoaderEvent) -> Void) {
        guard let queue = EventQueue(withFD: mode == .host) else { return nil }
        self.mode = mode
        self.queue = queue
        self.handler = handler
        if mode == .thread {
            guard let thread = NativeThread(name: "lazyimg-events", { [queue, unowned self] in
                while case var batch = queue.takeAllBlocking(), !batch.isEmpty {
                    self.run(&batch)
                    queue.recycle(&batch)
                }
            }) else { return nil }
            self.thread.withLock { $0 = thread }
        }
    }

    func push(contentsOf events: some Collection<LoaderEvent>) { queue.push(contentsOf: events) }

    /// Host delivery: runs up to `max` waiting events (0 = all waiting now).
    func dispatch(max: Int) -> Int {
        var batch = queue.take(max: max)
        let count = batch.count
        run(&batch)
        queue.recycle(&batch)
        return count
    }

    /// Whether the calling thread is inside one of this loader's callbacks, so that
    /// destroy can refuse to run inside one.
    var isInsideCallback: Bool {
        lazyimg_callback_running(Unmanaged.passUnretained(self).toOpaque()) != 0
    }

    /// Delivers everything still queued, then stops the delivery thread. Called once by
    /// the loader's shutdown after all tickets have their final event queued.
    func finish() {
        queue.close()
        if let thread = self.thread.withLock({ $0 }) {
            thread.join()
        } else {
            while dispatch(max: 0) > 0 {}
        }
    }

    /// Runs the callback for each event of `batch`, moving each out and leaving a
    /// spent one (`LoaderEvent.spent`) in its place.
    private func run(_ batch: inout [LoaderEvent]) {
        guard !batch.isEmpty else { return }
        // The calling thread's own record that it runs this loader's callbacks.
        var frame = lazyimg_callback_frame(owner: Unmanaged.passUnretained(self).toOpaque(), outer: nil)
        withUnsafeMutablePointer(to: &frame) { frame in
            lazyimg_callback_enter(frame)
            for index in batch.indices {
                // Moved, not copied: passed from the array, each event was copied
                // (its URL, message and image retained) and the copy destroyed
                // after the call, and the array's own destroyed again later, about
                // a third of an event's instructions (callgrind). The spent event
                // holds nothing to retain or release.
                var event = LoaderEvent.spent
                swap(&event, &batch[index])
                handler(event)
                delivered.add(1, ordering: .relaxed)
            }
            lazyimg_callback_leave(frame)
        }
    }
}
