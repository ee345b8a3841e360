#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_1 // ThreadSanitizer group 1 (see the Makefile's tsan)
import Dispatch
import Glibc
import TestSupport
import XCTest
@testable import LazyImgCore

/// The limit as `du` counts the directory: allocated blocks of entries, temp files,
/// shard directories and the journal, not the entries' bytes.
extension DiskCacheTests {
    /// `/usr/bin/du -sk` of `path`, in bytes.
    func diskUsage(_ path: String) throws -> Int {
        let du = "/usr/bin/du"
        guard access(du, X_OK) == 0 else { throw XCTSkip("\(du) is absent: the limit as du counts it is not checked") }
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        let arguments: [String] = [du, "-sk", path]
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, du, &actions, nil, argv, environ)
        close(fds[1])
        defer { close(fds[0]) }
        XCTAssertEqual(spawned, 0, "posix_spawn \(du)")
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        while true {
            let n = read(fds[0], &buffer, buffer.count)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            output += buffer[0..<n]
        }
        var status: Int32 = 0
        while spawned == 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        XCTAssertEqual(status, 0, "\(du) exit status")
        let kib = Int(String(decoding: output.prefix { $0 >= 48 && $0 <= 57 }, as: UTF8.self))
        return try XCTUnwrap(kib, "du printed \(String(decoding: output, as: UTF8.self))") * 1024
    }

    /// Stores `keys` (sizes from 1 byte to 90 KB) from `threads` threads at once.
    private func fill(_ cache: DiskCache, keys: Range<Int>, threads: Int) {
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for i in stride(from: keys.lowerBound + thread, to: keys.upperBound, by: threads) {
                cache.store(diskCacheTestKey(i), body: diskCacheTestBody(i), metadata: HTTPCacheMetadata())
            }
        }
    }

    func testDuOfTheDirectoryStaysWithinTheLimitFromSeveralThreadsAndAfterAReopen() throws {
        let limit = 3 << 20
        // The slack the bound allows: one entry, the largest these tests write.
        let oneEntry = DiskCacheSpace(directory: try DiskCacheDirectory(path: directory.path), limit: limit).charge(size: 91_000)
        do {
            let cache = try open(limit: limit)
            fill(cache, keys: 0..<600, threads: 4)
            let used = try diskUsage(directory.path)
            XCTAssertLessThanOrEqual(used, limit + oneEntry, "du after filling from 4 threads")
            XCTAssertLessThanOrEqual(used, cache.chargedBytes, "the accounting never counts less than du")
            XCTAssertGreaterThan(used, limit / 2, "filled, not kept small")
            XCTAssertGreaterThan(cache.statistics.evictions, 0)
            XCTAssertEqual(cache.statistics.writeErrors, 0)
        }
        // Reopened: the index is rebuilt from the directory, and more writes keep the bound.
        let reopened = try open(limit: limit)
        reopened.loadIndex()
        fill(reopened, keys: 600..<1200, threads: 4)
        let used = try diskUsage(directory.path)
        XCTAssertLessThanOrEqual(used, limit + oneEntry, "du after reopening and filling again")
        XCTAssertLessThanOrEqual(used, reopened.chargedBytes)
        var found = 0
        for i in 0..<1200 {
            guard let entry = reopened.read(diskCacheTestKey(i)) else { continue }
            XCTAssertEqual(entry.body, diskCacheTestBody(i), "entry \(i)")
            found += 1
        }
        XCTAssertGreaterThan(found, 20)
        // Reopened with a smaller limit: evicted down to it at once.
        let smaller = try open(limit: 2 << 20)
        smaller.loadIndex()
        XCTAssertLessThanOrEqual(try diskUsage(directory.path), 2 << 20)
    }

    func testALimitBelowTheFixedOverheadStoresNothingAndKeepsWorking() throws {
        for limit in [1, 10_000] {
            let cache = try open(limit: limit)
            cache.loadIndex()
            for i in 0..<20 {
                XCTAssertFalse(cache.store(diskCacheTestKey(i), body: diskCacheTestBody(i), metadata: HTTPCacheMetadata()))
                XCTAssertNil(cache.read(diskCacheTestKey(i)))
            }
            XCTAssertEqual(cache.statistics.writes, 0)
            XCTAssertEqual(cache.statistics.writeErrors, 0, "declined, not failed")
            XCTAssertEqual(directory.files().map(\.path).sorted(), ["journal", "lock"])
            cache.removeAll()
        }
    }

    /// Another process's write in progress, as its journal records tell it: the room
    /// it holds counts against the limit here until it is released.
    func testRoomAnotherProcessHoldsForItsWriteCountsUntilReleased() throws {
        let limit = 1 << 20
        let cache = try open(limit: limit)
        cache.loadIndex()
        let before = cache.chargedBytes
        let fd = Glibc.open(directory.path + "/journal", O_RDWR | O_CLOEXEC)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        let otherProcess = DiskCacheJournal(fd: fd)
        let held = limit - before - 50_000
        otherProcess.append(.reserve, DiskCache.fileName(diskCacheTestKey(7)), size: held)
        cache.loadIndex()
        XCTAssertEqual(cache.chargedBytes, before + held)
        XCTAssertFalse(cache.store(diskCacheTestKey(1), body: diskCacheTestBody(6), metadata: HTTPCacheMetadata()),
                       "90 KB does not fit beside the other process's write")
        otherProcess.append(.release, DiskCache.fileName(diskCacheTestKey(7)), size: held)
        XCTAssertTrue(cache.store(diskCacheTestKey(1), body: diskCacheTestBody(6), metadata: HTTPCacheMetadata()))
        XCTAssertEqual(cache.statistics.writeErrors, 0)
    }

    /// What a power loss can leave when the data never reached the disk: an entry's
    /// name on an empty file. The index counts it; the first read deletes it.
    func testAnEmptyEntryLeftByAPowerLossIsDeletedNotServed() throws {
        do {
            let cache = try open()
            XCTAssertTrue(cache.store(diskCacheTestKey(1), body: diskCacheTestBody(1), metadata: HTTPCacheMetadata()))
        }
        let entry = try XCTUnwrap(directory.files().first { $0.path.contains("/") })
        XCTAssertEqual(truncate(directory.path + "/" + entry.path, 0), 0)
        let reopened = try open()
        reopened.loadIndex()
        XCTAssertEqual(reopened.statistics.entries, 1)
        XCTAssertNil(reopened.read(diskCacheTestKey(1)))
        XCTAssertEqual(reopened.statistics.corruptRemoved, 1)
        XCTAssertEqual(reopened.statistics.entries, 0)
        XCTAssertFalse(directory.files().contains { $0.path.contains("/") }, "the empty file is deleted")
    }
}
#endif
