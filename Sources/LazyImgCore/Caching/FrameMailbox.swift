import Synchronization

/// Where a frame job leaves its frames and, at its end, the composer, for the host's
/// next frame call to take: a lock-free stack, so a decode thread never holds a lock
/// the host's thread waits on.
///
/// Decode threads run 10 nice steps below the host's; a low-priority thread holding
/// the loader's lock when the machine is busy can be kept off the CPU for tens of
/// milliseconds, and a frame call waiting on it misses frames. So a frame job takes
/// no lock at all: it pushes here, and checks `stopGeneration` between frames. The
/// host's frame call, which holds the loader's lock anyway, takes everything pushed
/// with one exchange (`takeAll`). Pushing is a compare-and-swap on the head; taking
/// swaps the whole list out, so no node is ever popped alone (no ABA).
final class FrameMailbox: Sendable {
    enum Item {
        case frame(index: Int, image: DecodedImage, epoch: Int)
        /// The job ended; its composer (epoch: the player's memory epoch it began in),
        /// nil when it never ran.
        case done(AnimationComposer?, epoch: Int)
    }

    /// A pushed item and the node pushed before it (a bit pattern; 0 = none), read
    /// only after the exchange that makes it visible.
    private final class Node: @unchecked Sendable {
        let item: Item
        var next: UInt = 0

        init(_ item: Item) {
            self.item = item
        }
    }

    private let head = Atomic<UInt>(0)
    /// Bumped to stop the job under way after the frame it decodes.
    let stopGeneration = Atomic<UInt64>(0)

    deinit {
        _ = takeAll()
    }

    /// On a decode thread.
    func push(_ item: Item) {
        let node = Node(item)
        let bits = UInt(bitPattern: Unmanaged.passRetained(node).toOpaque())
        var current = head.load(ordering: .relaxed)
        while true {
            node.next = current
            let (exchanged, original) = head.compareExchange(expected: current, desired: bits,
                                                             successOrdering: .releasing, failureOrdering: .relaxed)
            if exchanged { return }
            current = original
        }
    }

    /// Everything pushed so far, in the order it was pushed.
    func takeAll() -> [Item] {
        var bits = head.exchange(0, ordering: .acquiring)
        var items: [Item] = []
        while let pointer = UnsafeRawPointer(bitPattern: bits) {
            let node = Unmanaged<Node>.fromOpaque(pointer).takeRetainedValue()
            items.append(node.item)
            bits = node.next
        }
        return items.reversed()
    }

    /// Stops the job under way after its current frame.
    func stop() {
        stopGeneration.add(1, ordering: .relaxed)
    }
}
