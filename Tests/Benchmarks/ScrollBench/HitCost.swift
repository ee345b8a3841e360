import CLazyImgHeader
import Glibc

/// What a memory hit through `lazyimg_request` costs on the host thread, next to two
/// floors measured in the same run: an uncontended pthread mutex lock+unlock (what any
/// thread-safe cache pays) and a plain C-style hash lookup by URL (FNV-1a over the
/// bytes, open addressing, memcmp), what a single-threaded cache pays.
public struct HitCost: Sendable {
    public var requestHit = 0.0
    public var mutex = 0.0
    public var hashLookup = 0.0
    public var rows = 0

    static let rowCount = 64
    private static let calls = 400_000

    /// Loads `urls` (at most `rowCount`) into a fresh loader, then times the calls.
    static func measure(urls: [String]) throws(BenchError) -> HitCost {
        let urls = Array(urls.prefix(rowCount))
        var result = HitCost()
        result.rows = urls.count
        let keys = urls.map { strdup($0) }
        defer { keys.forEach { free($0) } }
        var sink = 0

        let loader = try filledLoader(keys)
        defer { _ = lazyimg_loader_destroy(loader) }
        result.requestHit = bestOfFive(calls) { i in
            var image: OpaquePointer?
            var ticket: UInt64 = 0
            _ = lazyimg_request(loader, i % keys.count, &image, &ticket)
            lazyimg_image_release(image)
        }

        let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        defer {
            pthread_mutex_destroy(mutex)
            mutex.deallocate()
        }
        result.mutex = bestOfFive(calls * 4) { _ in
            pthread_mutex_lock(mutex)
            sink &+= 1
            pthread_mutex_unlock(mutex)
        }

        let table = URLHashTable(keys: keys)
        let lengths = keys.map { $0.map { strlen($0) } ?? 0 }
        result.hashLookup = bestOfFive(calls) { i in
            let index = i % keys.count
            sink &+= keys[index].map { table.find($0, length: lengths[index]) } ?? 0
        }
        if sink == 42 { print("") }  // keeps the loops' work observable
        return result
    }

    private static func filledLoader(_ keys: [UnsafeMutablePointer<CChar>?]) throws(BenchError) -> OpaquePointer? {
        var config = lazyimg_config()
        lazyimg_config_init(&config)
        config.target_width = 64
        config.target_height = 64
        var loader: OpaquePointer?
        guard lazyimg_loader_create(&config, &loader) == LAZYIMG_OK else { throw .setup("lazyimg_loader_create failed") }
        let rows = keys.map { UnsafePointer($0) }
        _ = rows.withUnsafeBufferPointer { lazyimg_set_items(loader, $0.baseAddress, $0.count) }
        for row in rows.indices {
            var image: OpaquePointer?
            var ticket: UInt64 = 0
            _ = lazyimg_request(loader, row, &image, &ticket)
            lazyimg_image_release(image)
        }
        var stats = lazyimg_stats()
        stats.struct_size = UInt32(MemoryLayout<lazyimg_stats>.size)
        let deadline = monotonicNanoseconds() + 60_000_000_000  // at most a minute
        while lazyimg_get_stats(loader, &stats) == LAZYIMG_OK, stats.events_delivered < UInt64(rows.count),
              monotonicNanoseconds() < deadline {
            _ = lazyimg_wait(loader, 1000)
            _ = lazyimg_dispatch(loader, 0)
        }
        guard stats.memory_cache_count >= UInt64(rows.count) else {
            _ = lazyimg_loader_destroy(loader)
            throw .setup("hit cost: only \(stats.memory_cache_count) of \(rows.count) images cached "
                         + "(\(stats.downloads_started) downloads, \(stats.downloads_failed) failed, \(stats.events_delivered) events)")
        }
        return loader
    }

    /// Best of five runs of `calls` calls of `body`, in ns per call.
    private static func bestOfFive(_ calls: Int, _ body: (Int) -> Void) -> Double {
        var best = Double.infinity
        for _ in 0..<5 {
            let start = monotonicNanoseconds()
            for i in 0..<calls { body(i) }
            best = min(best, Double(monotonicNanoseconds() - start) / Double(calls))
        }
        return best
    }
}
