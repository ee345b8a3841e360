/// The loaders one run compares, in the order the tables list them.
public enum LoaderKind: String, CaseIterable, Sendable {
    case lazyimg
    case eager
    case lazyTable = "LazyTable"
    case suspendQueue = "suspend-queue"
    /// lazyimg never told where the list will rest, so it must predict from the
    /// velocities alone: what GTK, SDL, Dear ImGui and terminal hosts get.
    case lazyimgWithoutTarget = "lazyimg-no-target"
    /// The two lazyimg paths on a site that does not serve byte ranges, so that a
    /// download cancelled by a wrong prediction starts over when its row comes
    /// back: lazyimg as it was before it resumed downloads, side by side.
    case lazyimgWithoutRanges = "lazyimg-no-range"
    case lazyimgWithoutTargetOrRanges = "lazyimg-no-target-no-range"
    /// The two lazyimg paths with fetch_first_pass_only = 0: every file whole, as before
    /// 0.4.0, beside them on a site of progressive JPEGs or interlaced PNGs
    /// (`--progressive`, `--interlaced-png`).
    case lazyimgWholeFiles = "lazyimg-whole"
    case lazyimgWithoutTargetWholeFiles = "lazyimg-no-target-whole"
    /// lazyimg with preview_interval_ms = `previewIntervalMilliseconds`: cells show a
    /// progressive JPEG's first scans while the rest comes (`--progressive`, and a box
    /// larger than 1/8 of the photos, so that previews and not the DC-only fetch apply).
    case lazyimgPreviews = "lazyimg-previews"
    case lazyimgWithoutTargetPreviews = "lazyimg-no-target-previews"

    /// lazyimg-previews' interval (`--preview-ms`); Nuke's default is 500 ms.
    nonisolated(unsafe) public static var previewIntervalMilliseconds = 250

    /// What a run compares on the fixed traces unless told otherwise.
    public static let standard: [LoaderKind] = [.lazyimg, .lazyimgWithoutTarget, .eager, .lazyTable, .suspendQueue]
    /// On the generated sessions and the slow link: both paths and the baseline
    /// the goals are stated against.
    public static let sessions: [LoaderKind] = [.lazyimg, .lazyimgWithoutTarget, .lazyTable]
    /// On the slow link, where a download started over costs most: the sessions'
    /// loaders, and lazyimg's on a site without byte ranges beside them.
    public static let slowLink: [LoaderKind] = [.lazyimg, .lazyimgWithoutRanges, .lazyimgWithoutTarget,
                                                .lazyimgWithoutTargetOrRanges, .lazyTable]

    /// Whether the site serves this loader's run byte ranges.
    var siteServesRanges: Bool { self != .lazyimgWithoutRanges && self != .lazyimgWithoutTargetOrRanges }

    /// The suspend-queue's cap: lazyimg's default max_concurrent_downloads, so the two
    /// differ in policy only.
    public static let suspendQueueCap = 6

    func makeLoader(urls: [String], visibleRows: Int, box: Int) throws(BenchError) -> ListLoader {
        switch self {
        case .lazyimg, .lazyimgWithoutRanges: try LazyImgListLoader(urls: urls, visibleRows: visibleRows, box: box)
        case .lazyimgPreviews:
            try LazyImgListLoader(urls: urls, visibleRows: visibleRows, box: box,
                                  previewIntervalMilliseconds: Self.previewIntervalMilliseconds)
        case .lazyimgWithoutTargetPreviews:
            try LazyImgListLoader(urls: urls, visibleRows: visibleRows, box: box, useScrollTarget: false,
                                  previewIntervalMilliseconds: Self.previewIntervalMilliseconds)
        case .lazyimgWholeFiles:
            try LazyImgListLoader(urls: urls, visibleRows: visibleRows, box: box, fetchesFirstPassOnly: false)
        case .lazyimgWithoutTargetWholeFiles:
            try LazyImgListLoader(urls: urls, visibleRows: visibleRows, box: box, useScrollTarget: false,
                                  fetchesFirstPassOnly: false)
        case .lazyimgWithoutTarget, .lazyimgWithoutTargetOrRanges:
            try LazyImgListLoader(urls: urls, visibleRows: visibleRows, box: box, useScrollTarget: false)
        case .eager: try BaselineListLoader(policy: .eager, urls: urls, box: box)
        case .lazyTable: try LazyTableListLoader(urls: urls, box: box)
        case .suspendQueue:
            try BaselineListLoader(policy: .suspendQueue(maxConcurrent: Self.suspendQueueCap), urls: urls, box: box)
        }
    }
}
