import Synchronization

/// Elements pushed by any thread and taken all at once by one thread, without a lock.
///
/// A stack of nodes whose top is one atomic pointer: a push links its node in with a
/// compare-and-exchange, and the consumer takes the whole stack with one exchange and
/// reverses it, so it sees the pushes in the order they took effect (a thread's own
/// pushes in the order it made them). Nothing is ever popped singly, so the stack
/// cannot suffer the ABA problem of a lock-free pop. A push never waits: not on a
/// lock, not on the consumer, not on a full buffer (it has none).
final class Inbox<Element>: @unchecked Sendable {
    // @unchecked: a node's fields are written before the compare-and-exchange that
    // publishes it (release) and read after the exchange that takes it (acquire).
    private final class Node {
        let element: Element
        var next: UnsafeMutableRawPointer?

        init(_ element: Element) {
            self.element = element
        }
    }

    /// The newest node (an `Unmanaged<Node>`, retained), or nil.
    private let top = Atomic<UnsafeMutableRawPointer?>(nil)
    private let pushes = Atomic<UInt64>(0)

    init() {}

    deinit {
        var node = top.exchange(nil, ordering: .acquiring)
        while let raw = node {
            node = Unmanaged<Node>.fromOpaque(raw).takeRetainedValue().next
        }
    }

    /// How many elements were pushed so far: counted before each is linked, so a
    /// count a consumer has taken that many of says nothing is left to take.
    var pushedCount: UInt64 { pushes.load(ordering: .acquiring) }

    /// Sequentially consistent with `isEmpty`: a pusher that reads the consumer's
    /// state afterwards and a consumer that checks for work after announcing that
    /// state cannot both miss each other (`WakeSignal`).
    func push(_ element: Element) {
        pushes.add(1, ordering: .acquiringAndReleasing)
        let node = Unmanaged.passRetained(Node(element))
        var head = top.load(ordering: .relaxed)
        while true {
            node._withUnsafeGuaranteedRef { $0.next = head }
            let (exchanged, current) = top.compareExchange(expected: head, desired: node.toOpaque(),
                                                           successOrdering: .sequentiallyConsistent,
                                                           failureOrdering: .relaxed)
            if exchanged { return }
            head = current
        }
    }

    var isEmpty: Bool { top.load(ordering: .sequentiallyConsistent) == nil }

    /// Appends every element pushed since the last take to `batch`, oldest first, and
    /// returns how many.
    @discardableResult
    func takeAll(into batch: inout [Element]) -> Int {
        var node = top.exchange(nil, ordering: .sequentiallyConsistent)
        let start = batch.count
        while let raw = node {
            let taken = Unmanaged<Node>.fromOpaque(raw).takeRetainedValue()
            batch.append(taken.element)
            node = taken.next
        }
        batch[start...].reverse()
        return batch.count - start
    }
}
