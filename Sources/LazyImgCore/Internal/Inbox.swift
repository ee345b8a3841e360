import Synchronization

/// Elements pushed by any thread and taken all at once by one thread, without a lock.
///
/// A stack of nodes whose top is one atomic pointer: a push links its node in with a
/// compare-and-exchange, and the consumer takes the whole stack with one exchange and
/// reverses it, so it sees the pushes in the order they took effect (a thread's own
/// pushes in the order it made them). Nothing is ever popped singly, so the stack
/// cannot suffer the ABA problem of a lock-free pop. A push never waits: not on a
/// lock, not on the consumer, not on a full buffer (it has none).
///
/// The consumer hands the emptied nodes back on a second stack (`spare`), from which
/// the pushers take them all with one exchange into a cache of their own: a push
/// allocates only when none is spare. Allocated on the host's thread and freed
/// on the scheduler's, each node cost the host's frame a malloc that missed its
/// thread's cache (glibc's `_int_malloc`, about a tenth of a moving frame's
/// instructions with the frees' arena lock behind it, callgrind).
final class Inbox<Element>: @unchecked Sendable {
    // @unchecked: a node's fields are written before the compare-and-exchange that
    // publishes it (release) and read after the exchange that takes it (acquire);
    // the same for a spare node, the other way round. `reserve` is the one
    // consumer's; `pusherCache` is guarded by `cacheBusy` (acquire, release).
    private final class Node {
        /// nil in a spare node.
        @exclusivity(unchecked) var element: Element?
        @exclusivity(unchecked) var next: UnsafeMutableRawPointer?

        init(_ element: Element) {
            self.element = element
        }
    }

    // What every push touches and the consumer's take writes comes first: a
    // host's first call after a frame's sleep fetches the line of the stack's top,
    // not one line per object that held it.

    /// The newest node (an `Unmanaged<Node>`, retained), or nil.
    private let top = Atomic<UnsafeMutableRawPointer?>(nil)
    /// Emptied nodes for the next pushes (retained), or nil.
    private let spare = Atomic<UnsafeMutableRawPointer?>(nil)
    /// Nodes a take keeps spare at most; more are freed. A UI makes a few calls a
    /// frame and the scheduler takes them every few milliseconds.
    static var maxSpareNodes: Int { 16 }
    /// Spare nodes a pusher took, for the next pushes; guarded by `cacheBusy`,
    /// which a push only tries (no push waits for another).
    private var pusherCache: UnsafeMutableRawPointer?
    private let cacheBusy = Atomic<Bool>(false)
    /// The consumer's own emptied nodes (at most `maxSpareNodes`), waiting for the
    /// spare stack to be empty: handed over only then, so that no chain there grows
    /// past twice the cap. Touched by the consumer only.
    private var reserve: UnsafeMutableRawPointer?
    private var reserveCount = 0
    /// Nodes allocated so far, for the tests of the reuse.
    private let allocations = Atomic<Int>(0)
    var nodesAllocated: Int { allocations.load(ordering: .relaxed) }

    init() {}

    deinit {
        Self.release(top.exchange(nil, ordering: .acquiring))
        Self.release(spare.exchange(nil, ordering: .acquiring))
        Self.release(reserve)
        Self.release(pusherCache)
    }

    private static func release(_ first: UnsafeMutableRawPointer?) {
        var node = first
        while let raw = node {
            node = Unmanaged<Node>.fromOpaque(raw).takeRetainedValue().next
        }
    }

    /// Sequentially consistent with `isEmpty`: a pusher that reads the consumer's
    /// state afterwards and a consumer that checks for work after announcing that
    /// state cannot both miss each other (`WakeSignal`).
    func push(_ element: Element) {
        let node = spareNode(holding: element) ?? newNode(holding: element)
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

    private func newNode(holding element: Element) -> Unmanaged<Node> {
        allocations.add(1, ordering: .relaxed)
        return Unmanaged.passRetained(Node(element))
    }

    /// A spare node holding `element`, or nil when none is spare or another pusher
    /// holds the pushers' cache this instant (a push never waits). The cache is a
    /// chain taken whole from the spare stack with one exchange (an exchange cannot
    /// suffer ABA, as a pop would), so a push touches the line the scheduler
    /// writes only once per chain: a host's misses in a loop, which contend with
    /// the scheduler's takes, cost no more than the allocation did.
    private func spareNode(holding element: Element) -> Unmanaged<Node>? {
        guard !cacheBusy.exchange(true, ordering: .acquiring) else { return nil }
        defer { cacheBusy.store(false, ordering: .releasing) }
        if pusherCache == nil { pusherCache = spare.exchange(nil, ordering: .acquiring) }
        guard let raw = pusherCache else { return nil }
        let node = Unmanaged<Node>.fromOpaque(raw)
        node._withUnsafeGuaranteedRef { node in
            node.element = element
            pusherCache = node.next
        }
        return node
    }

    var isEmpty: Bool { top.load(ordering: .sequentiallyConsistent) == nil }

    /// Appends every element pushed since the last take to `batch`, oldest first, and
    /// returns how many. The consumer's call.
    @discardableResult
    func takeAll(into batch: inout [Element]) -> Int {
        var node = top.exchange(nil, ordering: .sequentiallyConsistent)
        let start = batch.count
        while let raw = node {
            let taken = Unmanaged<Node>.fromOpaque(raw)
            node = taken._withUnsafeGuaranteedRef { taken in
                let next = taken.next
                // Never nil: only a spare node is empty, and none is on this stack.
                if let element = taken.element.take() { batch.append(element) }
                taken.next = reserve
                return next
            }
            if reserveCount < Self.maxSpareNodes {
                reserve = raw
                reserveCount += 1
            } else {
                taken.release()
            }
        }
        batch[start...].reverse()
        // Only onto an empty spare stack, so that it holds one chain of at most
        // `maxSpareNodes` (linking two would mean walking one).
        if let reserve, spare.compareExchange(expected: nil, desired: reserve, successOrdering: .releasing,
                                              failureOrdering: .relaxed).exchanged {
            self.reserve = nil
            reserveCount = 0
        }
        return batch.count - start
    }
}
