import LazyImgCore

/// The suspend-queue baseline's queue (an OperationQueue as the caching articles use
/// it): rows run first in, first out, at most `maxConcurrent` downloads at once; it is
/// suspended while the list moves, and a row whose cell left the screen is taken out
/// if it has not started. A finished download starts the next row at once, from the
/// network thread, as an operation queue does.
final class SuspendableDownloadQueue: Sendable {
    private struct State {
        var waiting: [Int] = []
        var running = 0
        var suspended = false
    }

    private let maxConcurrent: Int
    private let fetcher: BaselineFetcher
    private let state = Locked(State())

    init(maxConcurrent: Int, fetcher: BaselineFetcher) {
        self.maxConcurrent = max(1, maxConcurrent)
        self.fetcher = fetcher
    }

    func enqueue(_ row: Int) {
        state.withLock { $0.waiting.append(row) }
        startWhatMayRun()
    }

    /// Takes `row` out if it is still waiting; true when it was.
    func removeWaiting(_ row: Int) -> Bool {
        state.withLock { s in
            guard let index = s.waiting.firstIndex(of: row) else { return false }
            s.waiting.remove(at: index)
            return true
        }
    }

    func setSuspended(_ suspended: Bool) {
        state.withLock { $0.suspended = suspended }
        if !suspended { startWhatMayRun() }
    }

    private func startWhatMayRun() {
        let rows: [Int] = state.withLock { s in
            guard !s.suspended else { return [] }
            let count = min(s.waiting.count, maxConcurrent - s.running)
            guard count > 0 else { return [] }
            s.running += count
            defer { s.waiting.removeFirst(count) }
            return Array(s.waiting.prefix(count))
        }
        for row in rows {
            fetcher.fetch(row: row) { [self] in
                state.withLock { $0.running -= 1 }
                startWhatMayRun()
            }
        }
    }
}
