/// One benchmark session: the site server and the runs made against it. Each run has
/// its own URLs (`/r<run>/...`), so no run gets another's connections or counts.
public final class ScrollBenchmark {
    public let server: SiteServer
    /// The box every loader decodes to: a list cell's thumbnail.
    public let box: Int
    /// Threads kept busy at the UI thread's priority through every run (`BusyThreads`).
    public let busyThreads: Int
    private var runs = 0

    public init(images: SiteImages, delayMilliseconds: Int, bytesPerSecond: Int, box: Int = 64,
                busyThreads: Int = 0) throws(BenchError) {
        server = try SiteServer(images: images.jpegs, delayMilliseconds: delayMilliseconds, bytesPerSecond: bytesPerSecond)
        self.box = box
        self.busyThreads = busyThreads
    }

    /// Whether this program's lazyimg has lazyimg_set_scroll_target (the lazyimg loader
    /// then calls it).
    public static var hasScrollTarget: Bool { ScrollTargetCall.available != nil }

    /// Replays `trace` with a fresh loader of `kind`, in real time, with the busy
    /// threads running from before the loader is made until it has finished.
    public func run(_ trace: ScrollTrace, with kind: LoaderKind) throws(BenchError) -> TraceRun {
        let urls = nextURLs(trace.rows)
        if !kind.siteServesRanges { server.refuseRanges(run: runs) }
        let busy = try BusyThreads(count: busyThreads)
        let loader: ListLoader
        do { loader = try kind.makeLoader(urls: urls, visibleRows: trace.visibleRows, box: box) } catch {
            busy.finish()
            throw error
        }
        var result = TraceRunner(trace: trace, server: server).run(loader, named: kind.rawValue, run: runs)
        result.busyPasses = busy.finish()
        return result
    }

    public func measureHitCost() throws(BenchError) -> HitCost {
        try HitCost.measure(urls: nextURLs(HitCost.rowCount))
    }

    public func stop() {
        server.stop()
    }

    private func nextURLs(_ count: Int) -> [String] {
        runs += 1
        return (0..<count).map { server.url(run: runs, row: $0) }
    }
}
