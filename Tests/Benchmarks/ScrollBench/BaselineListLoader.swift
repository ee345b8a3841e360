/// The loading strategies lazyimg is measured against, on its transport and decoder
/// (`BaselineFetcher`). None cancels a download once started.
final class BaselineListLoader: ListLoader {
    enum Policy: Sendable {
        /// Every row that appears starts its download at once (the lazy-loading tutorial).
        case eager
        /// Rows queue as they appear in a queue capped at `maxConcurrent` downloads,
        /// suspended while the list moves; rows that leave before they start are taken out.
        case suspendQueue(maxConcurrent: Int)
    }

    /// libcurl's connection cap where the policy sets none: above any screenful, so
    /// "no cap" holds, and the most lazyimg allows itself.
    static let uncappedConnections = 64

    private let policy: Policy
    private let fetcher: BaselineFetcher
    private let queue: SuspendableDownloadQueue?
    private var hasImage: [Bool]
    /// A download was started or queued and has not ended.
    private var asked: [Bool]
    private var onScreen: Range<Int> = 0..<0

    init(policy: Policy, urls: [String], box: Int) throws(BenchError) {
        self.policy = policy
        fetcher = try BaselineFetcher(urls: urls, box: box, maxConnections: Self.uncappedConnections)
        if case .suspendQueue(let maxConcurrent) = policy {
            queue = SuspendableDownloadQueue(maxConcurrent: maxConcurrent, fetcher: fetcher)
        } else {
            queue = nil
        }
        hasImage = Array(repeating: false, count: urls.count)
        asked = Array(repeating: false, count: urls.count)
    }

    func frame(_ frame: ScrollFrame, visible: Range<Int>, appeared: [Int]) -> Int64 {
        let start = monotonicNanoseconds()
        work(frame, visible: visible, appeared: appeared)
        return monotonicNanoseconds() - start
    }

    private func work(_ frame: ScrollFrame, visible: Range<Int>, appeared: [Int]) {
        for arrival in fetcher.takeArrivals() {
            asked[arrival.row] = false
            hasImage[arrival.row] = hasImage[arrival.row] || arrival.succeeded
        }
        let moving = frame.motion != .idle
        let left = onScreen.filter { !visible.contains($0) }
        onScreen = visible
        switch policy {
        case .eager:
            appeared.forEach(start)
        case .suspendQueue:
            guard let queue else { return }
            for row in left where queue.removeWaiting(row) { asked[row] = false }
            queue.setSuspended(moving)
            for row in appeared where !hasImage[row] && !asked[row] {
                asked[row] = true
                queue.enqueue(row)
            }
        }
    }

    private func start(_ row: Int) {
        guard !hasImage[row], !asked[row] else { return }
        asked[row] = true
        fetcher.fetch(row: row)
    }

    func isShowingImage(row: Int) -> Bool {
        onScreen.contains(row) && hasImage[row]
    }

    func finish() -> LoaderTally {
        fetcher.shutdown()
        return LoaderTally()
    }
}
