import CLazyTable

/// Apple's LazyTable policy with its per-frame part in C (`lazy_table.c`), as lean
/// as an app's frame: nothing starts while the list moves; at rest each visible row
/// without its image is queued for the baseline's network thread, woken once. The
/// downloads and decodes are lazyimg's transport and decoder (`BaselineFetcher`).
final class LazyTableListLoader: ListLoader {
    private let table: OpaquePointer
    private let fetcher: BaselineFetcher

    /// The table outlives every call into it: the fetcher is shut down (joining the
    /// threads that report arrivals) before the table is destroyed.
    private final class TableBox: @unchecked Sendable {
        var table: OpaquePointer?
    }

    init(urls: [String], box: Int) throws(BenchError) {
        let holder = TableBox()
        fetcher = try BaselineFetcher(urls: urls, box: box, maxConnections: BaselineListLoader.uncappedConnections) {
            arrival in
            if let table = holder.table { lazy_table_arrived(table, arrival.row, arrival.succeeded ? 1 : 0) }
        }
        let start: lazy_table_start_fn = { context, row in
            guard let context else { return }
            Unmanaged<BaselineFetcher>.fromOpaque(context).takeUnretainedValue().fetch(row: row)
        }
        guard let created = lazy_table_create(urls.count, start, Unmanaged.passUnretained(fetcher).toOpaque()) else {
            fetcher.shutdown()
            throw .setup("lazy_table_create failed")
        }
        table = created
        holder.table = created
    }

    func frame(_ frame: ScrollFrame, visible: Range<Int>, appeared: [Int]) -> Int64 {
        lazy_table_timed_frame(table, frame.motion == .idle ? 0 : 1, visible.lowerBound, visible.count)
    }

    func isShowingImage(row: Int) -> Bool {
        lazy_table_showing(table, row) != 0
    }

    func finish() -> LoaderTally {
        lazy_table_stop(table)  // no more starts
        fetcher.shutdown()  // no more arrivals
        lazy_table_destroy(table)
        return LoaderTally()
    }
}
