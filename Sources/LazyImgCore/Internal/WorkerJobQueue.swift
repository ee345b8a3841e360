/// The worker pool's waiting jobs: lowest priority value first, and first come first
/// served among equal priorities.
///
/// A binary min-heap keyed by (priority, arrival number): a long list can queue
/// hundreds of decodes, and the arrival number keeps the order FIFO, which a heap
/// alone would not.
struct WorkerJobQueue {
    typealias Job = @Sendable (any ImageDecoding) -> Void

    private struct Entry {
        let priority: Int
        let arrival: UInt64
        let job: Job

        func runsBefore(_ other: Entry) -> Bool {
            priority != other.priority ? priority < other.priority : arrival < other.arrival
        }
    }

    private var heap: [Entry] = []
    private var arrivals: UInt64 = 0

    var isEmpty: Bool { heap.isEmpty }
    var count: Int { heap.count }

    mutating func push(priority: Int, _ job: @escaping Job) {
        heap.append(Entry(priority: priority, arrival: arrivals, job: job))
        arrivals &+= 1
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].runsBefore(heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> Job? {
        guard !heap.isEmpty else { return nil }
        heap.swapAt(0, heap.count - 1)
        let first = heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count && heap[left].runsBefore(heap[smallest]) { smallest = left }
            if right < heap.count && heap[right].runsBefore(heap[smallest]) { smallest = right }
            guard smallest != parent else { break }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
        return first.job
    }

    mutating func removeAll() {
        heap.removeAll()
    }
}
