#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_1 // ThreadSanitizer group 1 (see the Makefile's tsan)
import Glibc
import TestSupport
import XCTest
@testable import LazyImgCore

/// Bytes only key `i` ever holds, of one of many sizes, so any mix-up shows.
func diskCacheTestBody(_ i: Int) -> [UInt8] {
    let size = [1, 700, 4_096, 13_000, 40_000, 2_500, 90_000][i % 7] + i % 13
    return (0..<size).map { UInt8(truncatingIfNeeded: i &* 31 &+ $0 &* 7 &+ $0 >> 8) }
}

func diskCacheTestKey(_ i: Int) -> DiskCache.Key {
    DiskCache.Key(group: "http://x.test/img/\(i).jpg")
}

final class DiskCacheTests: XCTestCase {
    var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
    }

    override func tearDown() {
        directory.remove()
    }

    func open(limit: Int = 64 << 20) throws -> DiskCache {
        try DiskCache(directory: directory.path, limit: limit)
    }

    /// The bytes of every entry file (what the limit bounds), temp files included.
    private func storedBytes() -> Int {
        directory.files().filter { $0.path != "lock" && $0.path != "journal" }.reduce(0) { $0 + $1.size }
    }

    func testAReopenedCacheFindsEveryEntryWithItsMetadata() throws {
        let metadata = HTTPCacheMetadata(etag: "\"v1\"", lastModified: "Mon, 30 Nov 2026 08:00:00 GMT",
                                         maxAgeSeconds: 600, noCache: true, storedAt: 1_800_000_000)
        do {
            let cache = try open()
            for i in 0..<40 { XCTAssertTrue(cache.store(diskCacheTestKey(i), body: diskCacheTestBody(i), metadata: metadata)) }
            XCTAssertTrue(cache.store(DiskCache.Key(group: diskCacheTestKey(0).group, variant: "64x64"), body: [9, 9],
                                      metadata: HTTPCacheMetadata()))
        }
        let reopened = try open()
        for i in 0..<40 {
            let entry = try XCTUnwrap(reopened.read(diskCacheTestKey(i)), "entry \(i)")
            XCTAssertEqual(entry.body, diskCacheTestBody(i))
            XCTAssertEqual(entry.metadata, metadata)
        }
        XCTAssertEqual(reopened.read(DiskCache.Key(group: diskCacheTestKey(0).group, variant: "64x64"))?.body, [9, 9])
        XCTAssertNil(reopened.read(DiskCache.Key(group: diskCacheTestKey(0).group, variant: "32x32")))
        XCTAssertNil(reopened.read(diskCacheTestKey(41)))
        reopened.loadIndex()
        XCTAssertEqual(reopened.statistics.entries, 41)
        XCTAssertEqual(Int(reopened.statistics.bytes), storedBytes())
    }

    func testFileNamesAreDigestsInShardsNeverTheURLsPath() throws {
        let cache = try open()
        XCTAssertTrue(cache.store(DiskCache.Key(group: "http://x.test/../../etc/passwd"), body: [1],
                                  metadata: HTTPCacheMetadata()))
        let entries = directory.files().map(\.path).filter { $0 != "lock" && $0 != "journal" }
        XCTAssertEqual(entries.count, 1)
        let parts = try XCTUnwrap(entries.first).split(separator: "/")
        XCTAssertEqual(parts.count, 2)
        XCTAssertEqual(parts[0].count, 2)
        XCTAssertTrue(parts[1].hasPrefix(parts[0]))
        XCTAssertTrue(parts[1].allSatisfy { $0.isHexDigit || $0 == "-" }, "\(parts[1])")
    }

    func testFlippedOrTruncatedEntriesAreDetectedAndRemoved() throws {
        let cache = try open()
        for i in 0..<20 { cache.store(diskCacheTestKey(i), body: diskCacheTestBody(i), metadata: HTTPCacheMetadata(etag: "e")) }
        let files = directory.files().filter { $0.path.contains("/") }
        XCTAssertEqual(files.count, 20)
        var damaged = 0
        for (n, file) in files.enumerated() {
            let path = directory.path + "/" + file.path
            let fd = Glibc.open(path, O_RDWR)
            XCTAssertGreaterThanOrEqual(fd, 0)
            if n % 2 == 0 {
                // One flipped bit somewhere: in the header, the key or the body.
                let offset = off_t((n * 7919) % file.size)
                var byte: UInt8 = 0
                XCTAssertEqual(pread(fd, &byte, 1, offset), 1)
                byte ^= 1 << UInt8(n % 8)
                XCTAssertEqual(pwrite(fd, &byte, 1, offset), 1)
            } else {
                XCTAssertEqual(ftruncate(fd, off_t(file.size / 2)), 0)
            }
            close(fd)
            damaged += 1
        }
        for i in 0..<20 { XCTAssertNil(cache.read(diskCacheTestKey(i)), "entry \(i) was damaged") }
        XCTAssertEqual(cache.statistics.corruptRemoved, UInt64(damaged))
        XCTAssertEqual(directory.files().filter { $0.path.contains("/") }.count, 0, "every damaged file deleted")
        cache.loadIndex()
        XCTAssertEqual(cache.statistics.entries, 0)
        XCTAssertTrue(cache.store(diskCacheTestKey(3), body: diskCacheTestBody(3), metadata: HTTPCacheMetadata()))
        XCTAssertEqual(cache.read(diskCacheTestKey(3))?.body, diskCacheTestBody(3), "refetched and stored again")
    }

    func testEntriesOfManySizesNeverPushTheDirectoryPastItsLimit() throws {
        // The limit counts the shard directories and the journal too: some 140 shards
        // used here take 560 KiB of it.
        let limit = 2_000_000
        let cache = try open(limit: limit)
        var order = Array(0..<200)
        order.shuffle()
        for i in order {
            cache.store(diskCacheTestKey(i), body: diskCacheTestBody(i), metadata: HTTPCacheMetadata())
            XCTAssertLessThanOrEqual(storedBytes(), limit)
            _ = cache.read(diskCacheTestKey(order[0]))
        }
        XCTAssertGreaterThan(cache.statistics.evictions, 0)
        XCTAssertEqual(Int(cache.statistics.bytes), storedBytes())
        XCTAssertNotNil(cache.read(diskCacheTestKey(order[0])), "read often: kept as recently used")
        XCTAssertFalse(cache.store(diskCacheTestKey(999), body: [UInt8](repeating: 1, count: limit), metadata: HTTPCacheMetadata()),
                       "larger than the whole cache: not stored")
        // A smaller limit on reopening evicts down to it at once.
        let smaller = try open(limit: 1_000_000)
        smaller.loadIndex()
        XCTAssertLessThanOrEqual(storedBytes(), 1_000_000)
    }

    func testLeastRecentlyReadEntriesGoFirstAcrossAReopen() throws {
        let body = [UInt8](repeating: 7, count: 1_000)
        let fourEntries: Int
        do {
            // A limit whose journal bound (one block) matches the reopened one's.
            let cache = try open(limit: 300_000)
            for i in 0..<4 { cache.store(diskCacheTestKey(i), body: body, metadata: HTTPCacheMetadata()) }
            fourEntries = cache.chargedBytes
            // Reading 0 makes 1 the least recently used (modification times are
            // nanoseconds; the reads come after every write).
            _ = cache.read(diskCacheTestKey(0))
        }
        let cache = try open(limit: fourEntries)
        cache.store(diskCacheTestKey(4), body: body, metadata: HTTPCacheMetadata())
        XCTAssertNil(cache.read(diskCacheTestKey(1)))
        XCTAssertNotNil(cache.read(diskCacheTestKey(0)))
    }

    func testRemovingAGroupTakesItsOriginalAndThumbnailsOnly() throws {
        let cache = try open()
        let url = diskCacheTestKey(1).group
        cache.store(DiskCache.Key(group: url), body: [1], metadata: HTTPCacheMetadata())
        cache.store(DiskCache.Key(group: url, variant: "a"), body: [2], metadata: HTTPCacheMetadata())
        cache.store(diskCacheTestKey(2), body: [3], metadata: HTTPCacheMetadata())
        cache.remove(group: url)
        XCTAssertNil(cache.read(DiskCache.Key(group: url)))
        XCTAssertNil(cache.read(DiskCache.Key(group: url, variant: "a")))
        XCTAssertEqual(cache.read(diskCacheTestKey(2))?.body, [3])
        XCTAssertEqual(cache.statistics.entries, 1)
        cache.removeAll()
        XCTAssertNil(cache.read(diskCacheTestKey(2)))
        XCTAssertEqual(cache.statistics.entries, 0)
        XCTAssertEqual(storedBytes(), 0)
    }

    func testLeftoverTempFilesOfDeadProcessesAreRemovedByTheIndexScan() throws {
        let cache = try open()
        cache.store(diskCacheTestKey(1), body: [1], metadata: HTTPCacheMetadata())
        let shard = try XCTUnwrap(directory.files().first { $0.path.contains("/") }?.path.split(separator: "/").first)
        // A temp file of a process that no longer runs (pid 0x7ffffff0 is never handed
        // out), and one of a process that does (this one's parent).
        for name in [".tmp-2147483632.1", ".tmp-\(getppid()).1"] {
            let fd = Glibc.open("\(directory.path)/\(shard)/\(name)", O_WRONLY | O_CREAT, 0o600)
            XCTAssertGreaterThanOrEqual(fd, 0)
            close(fd)
        }
        let reopened = try open()
        reopened.loadIndex()
        let temps = directory.files().map(\.path).filter { $0.contains("/.tmp-") }
        XCTAssertEqual(temps, ["\(shard)/.tmp-\(getppid()).1"], "only the live process's write is left")
        XCTAssertEqual(reopened.statistics.entries, 1, "temp files are not entries")
    }

    func testAFailedWriteIsCountedAndLosesNothing() throws {
        let cache = try open()
        for i in 0..<5 { cache.store(diskCacheTestKey(i), body: diskCacheTestBody(i), metadata: HTTPCacheMetadata()) }
        // The disk is "full": files may not grow past 100 bytes (EFBIG, SIGXFSZ ignored).
        let previousHandler = signal(SIGXFSZ, SIG_IGN)
        var previous = rlimit()
        getrlimit(Int32(RLIMIT_FSIZE.rawValue), &previous)
        var tiny = previous
        tiny.rlim_cur = 100
        setrlimit(Int32(RLIMIT_FSIZE.rawValue), &tiny)
        let stored = cache.store(diskCacheTestKey(2), body: diskCacheTestBody(6), metadata: HTTPCacheMetadata())
        setrlimit(Int32(RLIMIT_FSIZE.rawValue), &previous)
        signal(SIGXFSZ, previousHandler)
        XCTAssertFalse(stored)
        XCTAssertEqual(cache.statistics.writeErrors, 1)
        for i in 0..<5 { XCTAssertEqual(cache.read(diskCacheTestKey(i))?.body, diskCacheTestBody(i), "entry \(i) intact") }
        XCTAssertFalse(directory.files().contains { $0.path.contains("/.tmp-") }, "the partial write is gone")
    }

    func testAnUnusableDirectoryIsAnError() throws {
        let file = try TemporaryFile(bytes: [1])
        defer { file.remove() }
        XCTAssertThrowsError(try DiskCache(directory: file.path, limit: 1000))
        XCTAssertThrowsError(try DiskCache(directory: file.path + "/below", limit: 1000))
        XCTAssertNoThrow(try DiskCache(directory: directory.path + "/a/b/c", limit: 1000), "missing parents are made")
    }
}
#endif
