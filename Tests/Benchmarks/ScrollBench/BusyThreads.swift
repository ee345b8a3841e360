import LazyImgCore
import Synchronization

/// Threads that compete with the UI thread for the cores while a trace runs
/// (`--busy-threads N`): a host's other work at the UI's own priority, such as a
/// layout or a parser on a thread pool. Each walks a buffer larger than the
/// last-level caches of a small machine, reading and writing it, so it takes both
/// a core and the caches the frame would have found warm.
///
/// Made by the harness's thread, the one that makes the frames: a Linux thread
/// starts with its creator's nice value and scheduling policy, so the busy threads
/// run at exactly the UI thread's priority.
public final class BusyThreads {
    /// 8 MiB per thread.
    public static let bufferBytes = 8 << 20

    private final class Shared: Sendable {
        let stopped = Atomic<Bool>(false)
        /// Whole walks of a buffer, summed over the threads.
        let passes = Atomic<Int>(0)
    }

    private let shared = Shared()
    private var threads: [NativeThread] = []

    /// Starts `count` threads; throws when the system refuses one (those started stop).
    init(count: Int) throws(BenchError) {
        for index in 0..<count {
            let shared = shared
            guard let thread = NativeThread(name: "bench-busy-\(index)", { Self.spin(shared) }) else {
                finish()
                throw .setup("cannot start busy thread \(index)")
            }
            threads.append(thread)
        }
    }

    /// Stops the threads, waits for them, and returns how many walks of a buffer
    /// they made.
    @discardableResult
    func finish() -> Int {
        shared.stopped.store(true, ordering: .relaxed)
        threads.forEach { $0.join() }
        threads.removeAll()
        return shared.passes.load(ordering: .relaxed)
    }

    /// Strides a cache line at a time over the buffer, adding to each word it
    /// visits, until stopped; what it summed is written back so it is not elided.
    private static func spin(_ shared: Shared) {
        let words = bufferBytes / MemoryLayout<UInt64>.stride
        let buffer = UnsafeMutablePointer<UInt64>.allocate(capacity: words)
        buffer.initialize(repeating: 1, count: words)
        defer { buffer.deallocate() }
        var sum: UInt64 = 0
        while !shared.stopped.load(ordering: .relaxed) {
            var index = 0
            while index < words {
                sum &+= buffer[index]
                buffer[index] = sum
                index += 8
            }
            shared.passes.add(1, ordering: .relaxed)
        }
        buffer[0] = sum
    }
}
