/// The loaders one run compares, in the order the tables list them.
public enum LoaderKind: String, CaseIterable, Sendable {
    case lazyimg
    case eager
    case lazyTable = "LazyTable"
    case suspendQueue = "suspend-queue"
    /// lazyimg never told where the list will rest, so it must predict from the
    /// velocities alone; only when asked for (--loaders).
    case lazyimgWithoutTarget = "lazyimg-no-target"

    /// What a run compares unless told otherwise.
    public static let standard: [LoaderKind] = [.lazyimg, .eager, .lazyTable, .suspendQueue]

    /// The suspend-queue's cap: lazyimg's default max_concurrent_downloads, so the two
    /// differ in policy only.
    public static let suspendQueueCap = 6

    func makeLoader(urls: [String], visibleRows: Int, box: Int) throws(BenchError) -> ListLoader {
        switch self {
        case .lazyimg: try LazyImgListLoader(urls: urls, visibleRows: visibleRows, box: box)
        case .lazyimgWithoutTarget:
            try LazyImgListLoader(urls: urls, visibleRows: visibleRows, box: box, useScrollTarget: false)
        case .eager: try BaselineListLoader(policy: .eager, urls: urls, box: box)
        case .lazyTable: try BaselineListLoader(policy: .lazyTable, urls: urls, box: box)
        case .suspendQueue:
            try BaselineListLoader(policy: .suspendQueue(maxConcurrent: Self.suspendQueueCap), urls: urls, box: box)
        }
    }
}
