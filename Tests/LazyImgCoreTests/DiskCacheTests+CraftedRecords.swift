#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_1 // ThreadSanitizer group 1 (see the Makefile's tsan)
import Glibc
import TestSupport
import XCTest
@testable import LazyImgCore

/// Crafted bytes in the cache's files, as another process (or anything that can
/// write the directory) leaves them: CRC-valid entries with extreme times, journal
/// records with extreme sizes or names that are not an entry's, files with extreme
/// sizes and times. The process that reads them is a child, so that a trap shows as
/// its exit status instead of ending the test run. (An extension: see
/// DiskCacheTests+HTTPPolicy.swift on ThreadSanitizer's test listing.)
extension DiskCacheTests {
    private static let readerTest = "LazyImgCoreTests.DiskCacheTests/testChildReader"
    /// Keys the crafted entries are stored under.
    private static let craftedKeys = (0..<8).map { DiskCache.Key(group: "http://x.test/crafted/\($0)") }

    /// The reader: opens the cache, reads every crafted key and asks whether it is
    /// fresh, then stores and reads back an entry of its own. Exit 10 when all went
    /// as it should (not 0: a child that ran no test exits 0), 12 when a crafted
    /// entry read as fresh, 13 when its own write or read failed; a trap ends it
    /// with its signal.
    func testChildReader() throws {
        guard let path = ChildProcess.environment("LAZYIMG_TEST_CACHE_DIR") else {
            throw XCTSkip("runs only as the child of a DiskCacheTests crafted-record test")
        }
        directory.remove()
        let limit = Int(ChildProcess.environment("LAZYIMG_TEST_LIMIT") ?? "") ?? 1 << 20
        let cache = try DiskCache(directory: path, limit: limit)
        cache.loadIndex()
        var fresh = false
        for key in Self.craftedKeys {
            if let entry = cache.read(key), entry.metadata.isFresh(now: HTTPCacheMetadata.now) { fresh = true }
        }
        let own = DiskCache.Key(group: "http://x.test/own")
        guard cache.store(own, body: [1, 2, 3], metadata: HTTPCacheMetadata()), cache.read(own)?.body == [1, 2, 3] else {
            exit(13)
        }
        exit(fresh ? 12 : 10)
    }

    /// Runs the reader on the directory; its exit status.
    private func runReader(limit: Int = 1 << 20) throws -> Int32 {
        try ChildProcess(test: Self.readerTest, environment: [
            "LAZYIMG_TEST_CACHE_DIR": directory.path, "LAZYIMG_TEST_LIMIT": "\(limit)",
        ]).wait()
    }

    /// Appends a journal record as any writer of the file could: its operation,
    /// name and the 64 bits of its size as given.
    private func appendRecord(_ operation: DiskCacheJournal.Operation, _ name: String, sizeBits: UInt64) {
        let fd = Glibc.open(directory.path + "/journal", O_RDWR | O_CLOEXEC)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        var record = [UInt8](repeating: 0, count: DiskCacheJournal.recordSize)
        record[0] = operation.rawValue
        record[1] = UInt8(name.utf8.count)
        for i in 0..<8 { record[4 + i] = UInt8(truncatingIfNeeded: sizeBits >> UInt64(8 * i)) }
        record.replaceSubrange(12..<12 + name.utf8.count, with: Array(name.utf8))
        XCTAssertTrue(DiskCacheFiles.writeAll(fd, record, at: DiskCacheJournal(fd: fd).end()))
    }

    func testCRCValidEntriesWithExtremeTimesAreStaleAndNeverTrap() throws {
        let cache = try DiskCache(directory: directory.path, limit: 1 << 20)
        let extremes: [(storedAt: Int64, maxAge: Int64)] = [
            (.min, 100), (.min, .max), (.max, 100), (.max, .max), (.max - 1, .max), (.min + 1, 1), (1 << 62, 0), (.min, 0),
        ]
        for (key, extreme) in zip(Self.craftedKeys, extremes) {
            XCTAssertTrue(cache.store(key, body: [9], metadata: HTTPCacheMetadata(maxAgeSeconds: extreme.maxAge,
                                                                                 storedAt: extreme.storedAt)))
        }
        XCTAssertEqual(try runReader(), 10, "10: every one stale; 12: one was fresh; 132 or 133: the reader trapped")
    }

    func testJournalRecordsOfExtremeSizesNeverTrapTheProcessReadingThem() throws {
        let cache = try DiskCache(directory: directory.path, limit: 1 << 20)
        cache.loadIndex()
        let name = DiskCache.fileName(Self.craftedKeys[0])
        appendRecord(.reserve, name, sizeBits: UInt64(Int.max))
        appendRecord(.reserve, name, sizeBits: UInt64(Int.max))
        appendRecord(.add, name, sizeBits: UInt64(Int.max))
        appendRecord(.add, DiskCache.fileName(Self.craftedKeys[1]), sizeBits: UInt64.max)
        appendRecord(.release, name, sizeBits: 1 << 63)
        // This process too, not only a new one that reads them from the start.
        XCTAssertTrue(cache.store(DiskCache.Key(group: "k"), body: [1], metadata: HTTPCacheMetadata()))
        XCTAssertLessThanOrEqual(cache.chargedBytes, 1 << 20)
        XCTAssertEqual(try runReader(), 10, "132 or 133: the reader trapped")
    }

    func testAJournalRecordNamingAPathOutsideTheCacheNeverReachesAFileCall() throws {
        let outside = try TemporaryDirectory()
        defer { outside.remove() }
        let victim = outside.path + "/victim"
        let fd = Glibc.open(victim, O_WRONLY | O_CREAT, 0o600)
        close(fd)
        let cache = try DiskCache(directory: directory.path, limit: 200_000)
        cache.loadIndex()
        // Evicted as the oldest entry, its file would be "<dir>/../tmp/<outside>/victim".
        let name = "../" + String(victim.dropFirst())
        XCTAssertLessThanOrEqual(name.utf8.count, DiskCacheJournal.maxNameBytes)
        let before = cache.chargedBytes
        appendRecord(.add, name, sizeBits: 150_000)
        cache.loadIndex()
        XCTAssertEqual(cache.chargedBytes, before, "the record is skipped, not counted")
        for i in 0..<5 { cache.store(diskCacheTestKey(i), body: diskCacheTestBody(i), metadata: HTTPCacheMetadata()) }
        cache.remove(group: Array("http://x.test/img/0.jpg".utf8))
        cache.removeAll()
        XCTAssertEqual(access(victim, F_OK), 0, "the file outside is still there")
    }

    func testAJournalLargerThanAnyProcessWritesIsEmptiedNotRead() throws {
        let limit = 1 << 20
        let cache = try DiskCache(directory: directory.path, limit: limit)
        XCTAssertTrue(cache.store(diskCacheTestKey(1), body: [1], metadata: HTTPCacheMetadata()))
        // 8 MiB of nothing (sparse), then a record that would hold nearly all the room:
        // read, it would cost an 8 MiB buffer (any size the file claims) and refuse
        // the next write.
        let fd = Glibc.open(directory.path + "/journal", O_RDWR)
        XCTAssertEqual(ftruncate(fd, off_t(8 << 20)), 0)
        close(fd)
        appendRecord(.reserve, DiskCache.fileName(diskCacheTestKey(9)), sizeBits: UInt64(limit - 10_000))
        XCTAssertTrue(cache.store(diskCacheTestKey(2), body: diskCacheTestBody(6), metadata: HTTPCacheMetadata()),
                      "the oversized journal's record was not applied")
        var info = stat()
        XCTAssertEqual(stat(directory.path + "/journal", &info), 0)
        XCTAssertLessThanOrEqual(Int(info.st_size), DiskCacheJournal.maxBytes, "emptied under a new generation")
        let reopened = try DiskCache(directory: directory.path, limit: limit)
        reopened.loadIndex()
        XCTAssertEqual(reopened.statistics.entries, 2, "the index rebuilt from the directory")
        XCTAssertEqual(cache.read(diskCacheTestKey(1))?.body, [1])
    }

    func testEntryFilesOfExtremeSizesAndTimesNeverTrapTheScan() throws {
        do {
            let cache = try DiskCache(directory: directory.path, limit: 1 << 20)
            for key in Self.craftedKeys.prefix(2) {
                XCTAssertTrue(cache.store(key, body: [1], metadata: HTTPCacheMetadata(maxAgeSeconds: 0)))
            }
        }
        let paths = Self.craftedKeys.prefix(2).map { key -> String in
            let name = DiskCache.fileName(key)
            return "\(directory.path)/\(name.prefix(2))/\(name)"
        }
        // A modification time centuries ahead (as nanoseconds it overflows 64 bits)...
        var times = [timespec(tv_sec: 12_000_000_000, tv_nsec: 0), timespec(tv_sec: 12_000_000_000, tv_nsec: 0)]
        XCTAssertEqual(utimensat(AT_FDCWD, paths[0], &times, 0), 0)
        var info = stat()
        XCTAssertEqual(stat(paths[0], &info), 0)
        guard info.st_mtim.tv_sec == 12_000_000_000 else { throw XCTSkip("this file system cannot keep that time") }
        // ...and a sparse file of 4 TiB.
        XCTAssertEqual(truncate(paths[1], off_t(1) << 42), 0)
        XCTAssertEqual(try runReader(), 10, "132 or 133: the reader trapped")
    }

    /// The fuzz step's seeds (scripts/fuzz.sh): this cache's real entry files and
    /// journals, written to build/fuzz-seeds/ (make xctest runs before make fuzz).
    func testTheCachesRealFilesSeedTheFuzzer() throws {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        let build = (parts + ["build"]).joined(separator: "/")
        let seeds = build + "/fuzz-seeds"
        for folder in [build, seeds, seeds + "/disk-entry", seeds + "/disk-journal"] { mkdir(folder, 0o755) }
        func save(_ bytes: [UInt8], _ name: String) {
            let fd = Glibc.open(seeds + "/" + name, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            XCTAssertTrue(DiskCacheFiles.writeAll(fd, bytes))
            close(fd)
        }
        func journal() throws -> [UInt8] {
            let fd = Glibc.open(directory.path + "/journal", O_RDONLY)
            defer { close(fd) }
            return try XCTUnwrap(DiskCacheFiles.readAll(fd, maxBytes: 1 << 20)).bytes
        }

        let cache = try DiskCache(directory: directory.path, limit: 1 << 20)
        let other = try DiskCache(directory: directory.path, limit: 1 << 20)
        let thumbnail = try XCTUnwrap(DecodedImage(width: 3, height: 2, sourceWidth: 30, sourceHeight: 20, format: .rgba8))
        let stores: [(DiskCache.Key, [UInt8], HTTPCacheMetadata)] = [
            (DiskCache.Key(group: "http://x.test/a.jpg"), diskCacheTestBody(3), HTTPCacheMetadata()),
            (DiskCache.Key(group: "http://x.test/b.jpg", credentials: [UInt8](repeating: 7, count: 32)), [1, 2, 3],
             HTTPCacheMetadata(etag: "\"v1\"", lastModified: "Mon, 30 Nov 2026 08:00:00 GMT", maxAgeSeconds: 600,
                               storedAt: 1_800_000_000, selectingHeaders: "user-agent: lazyimg\n")),
            (DiskCache.Key(group: "http://x.test/a.jpg", variant: "thumb/64x64/inside/rgba"),
             DiskCacheThumbnail.encode(thumbnail), HTTPCacheMetadata(noCache: true)),
        ]
        for (i, (key, body, metadata)) in stores.enumerated() {
            XCTAssertTrue((i % 2 == 0 ? cache : other).store(key, body: body, metadata: metadata))
            let name = DiskCache.fileName(key)
            let fd = Glibc.open("\(directory.path)/\(name.prefix(2))/\(name)", O_RDONLY)
            let file = try XCTUnwrap(DiskCacheFiles.readAll(fd, maxBytes: 1 << 20)).bytes
            close(fd)
            XCTAssertNotNil(DiskCacheEntry(decoding: file), "a real entry")
            save(file, "disk-entry/entry-\(i)")
        }
        cache.remove(group: Array("http://x.test/b.jpg".utf8))
        other.loadIndex()
        // The journal target's first byte: even = records to append, odd = a whole file.
        let log = try journal()
        XCTAssertGreaterThan(log.count, DiskCacheJournal.headerSize)
        save([0] + log.dropFirst(DiskCacheJournal.headerSize), "disk-journal/records")
        save([1] + log, "disk-journal/whole")
    }

    func testANegativeMaxAgeIsStaleAlsoWhenReadBackFromDisk() throws {
        let cache = try DiskCache(directory: directory.path, limit: 1 << 20)
        for (i, value) in ["-5", "1e3", "99999999999999999999999"].enumerated() {
            let metadata = HTTPCacheMetadata(headers: HTTPCacheHeaders(cacheControl: "max-age=\(value)"), now: 1_000)
            XCTAssertTrue(cache.store(Self.craftedKeys[i], body: [1], metadata: metadata))
        }
        let now: Int64 = 1_000 + (1 << 31) - 1
        XCTAssertEqual(cache.read(Self.craftedKeys[0])?.metadata.isFresh(now: 1_001), false, "-5 is malformed: stale")
        XCTAssertEqual(cache.read(Self.craftedKeys[1])?.metadata.isFresh(now: 1_001), false, "so is 1e3")
        XCTAssertEqual(cache.read(Self.craftedKeys[2])?.metadata.isFresh(now: now), true, "too large: 2^31 s (RFC 9111 §1.2.2)")
        XCTAssertEqual(cache.read(Self.craftedKeys[2])?.metadata.isFresh(now: now + 1), false)
    }
}
#endif
