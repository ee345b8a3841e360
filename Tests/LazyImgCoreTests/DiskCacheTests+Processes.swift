#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_1 // ThreadSanitizer group 1 (see the Makefile's tsan)
import Glibc
import TestSupport
import XCTest
@testable import LazyImgCore

/// Several processes on one cache directory, and processes killed mid-write. The test
/// binary starts itself again as the writer (`testChildWriter`, which does nothing
/// when run without its orders in the environment).
extension DiskCacheTests {
    private static let writerTest = "LazyImgCoreTests.DiskCacheTests/testChildWriter"

    /// The writer: stores keys first..<first+count, `rounds` times, reading some back
    /// (a wrong body exits 3), writing one byte to the progress descriptor per store.
    func testChildWriter() throws {
        guard let path = ChildProcess.environment("LAZYIMG_TEST_CACHE_DIR") else {
            throw XCTSkip("runs only as the child of a DiskCacheTests process test")
        }
        // setUp made a directory the child does not use, and exit() or SIGKILL will
        // skip tearDown: remove it now.
        directory.remove()
        let env = { (name: String) in Int(ChildProcess.environment(name) ?? "") ?? 0 }
        let (first, count, rounds, progress) = (env("LAZYIMG_TEST_FIRST"), env("LAZYIMG_TEST_COUNT"),
                                                env("LAZYIMG_TEST_ROUNDS"), env("LAZYIMG_TEST_PROGRESS_FD"))
        let cache = try DiskCache(directory: path, limit: env("LAZYIMG_TEST_LIMIT"))
        for round in 0..<rounds {
            for i in first..<first + count {
                cache.store(diskCacheTestKey(i), body: diskCacheTestBody(i), metadata: HTTPCacheMetadata(storedAt: Int64(round)))
                if let entry = cache.read(diskCacheTestKey(first + (i * 7) % count)),
                   entry.body != diskCacheTestBody(first + (i * 7) % count) { exit(3) }
                if progress > 0 {
                    var byte: UInt8 = 1
                    _ = write(Int32(progress), &byte, 1)
                }
            }
        }
        exit(0)
    }

    /// Entry and temp files (those in subdirectories).
    private func bytesInSubdirectories() -> Int {
        directory.files().filter { $0.path.contains("/") }.reduce(0) { $0 + $1.size }
    }

    /// Every entry still there is intact, and the directory is within its limit.
    private func checkIntact(keys: Range<Int>, limit: Int, slack: Int = 0) throws -> Int {
        let cache = try DiskCache(directory: directory.path, limit: limit)
        cache.loadIndex()
        XCTAssertLessThanOrEqual(bytesInSubdirectories(), limit + slack)
        var found = 0
        for i in keys {
            guard let entry = cache.read(diskCacheTestKey(i)) else { continue }
            XCTAssertEqual(entry.body, diskCacheTestBody(i), "entry \(i)")
            found += 1
        }
        XCTAssertEqual(cache.statistics.corruptRemoved, 0, "a rename never leaves a torn entry")
        return found
    }

    /// Starts a writer of keys 0..<60, lets it store `stores` entries, then kills it
    /// wherever it is; returns how many stores it reported.
    private func killWriter(afterStores stores: Int, limit: Int) throws -> Int {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        let child = try ChildProcess(test: Self.writerTest, environment: [
            "LAZYIMG_TEST_CACHE_DIR": directory.path, "LAZYIMG_TEST_LIMIT": "\(limit)",
            "LAZYIMG_TEST_FIRST": "0", "LAZYIMG_TEST_COUNT": "60", "LAZYIMG_TEST_ROUNDS": "1000",
            "LAZYIMG_TEST_PROGRESS_FD": "\(fds[1])",
        ])
        close(fds[1])
        var seen = 0
        var byte: UInt8 = 0
        while seen < stores, read(fds[0], &byte, 1) == 1 { seen += 1 }
        child.kill()
        close(fds[0])
        return seen
    }

    func testWritersKilledAtRandomMomentsLeaveOnlyIntactEntriesWithinTheLimit() throws {
        let limit = 400_000
        for iteration in 0..<25 {
            let wanted = Int.random(in: 1...40)
            XCTAssertEqual(try killWriter(afterStores: wanted, limit: limit), wanted, "iteration \(iteration): the writer died early")
            // At most the one entry being written may be over: its temp file.
            XCTAssertLessThanOrEqual(bytesInSubdirectories(), limit + 100_000, "iteration \(iteration)")
            XCTAssertLessThanOrEqual(try diskUsage(directory.path), limit + 100_000, "du, iteration \(iteration)")
        }
        let found = try checkIntact(keys: 0..<60, limit: limit)
        XCTAssertGreaterThan(found, 0)
        XCTAssertFalse(directory.files().contains { $0.path.contains("/.tmp-") }, "temp files of dead writers removed")
    }

    /// Issue 17's "held" case: a second process keeps writing and reading the same
    /// keys while the first is killed mid-write again and again.
    func testAWriterKilledAgainAndAgainBesideAnotherNeverLeavesItAMismatchedEntry() throws {
        let limit = 400_000
        let steady = try ChildProcess(test: Self.writerTest, environment: [
            "LAZYIMG_TEST_CACHE_DIR": directory.path, "LAZYIMG_TEST_LIMIT": "\(limit)",
            "LAZYIMG_TEST_FIRST": "0", "LAZYIMG_TEST_COUNT": "60", "LAZYIMG_TEST_ROUNDS": "1000000",
        ])
        for iteration in 0..<20 {
            let wanted = Int.random(in: 1...30)
            XCTAssertEqual(try killWriter(afterStores: wanted, limit: limit), wanted,
                           "iteration \(iteration): the killed writer died early (as on reading a wrong body)")
            var status: Int32 = 0
            XCTAssertEqual(waitpid(steady.pid, &status, WNOHANG), 0, "iteration \(iteration): the other writer still runs")
        }
        _ = Glibc.kill(steady.pid, SIGKILL)
        XCTAssertEqual(steady.wait(), 128 + SIGKILL, "killed by us, never exited on a wrong body (3)")
        XCTAssertGreaterThan(try checkIntact(keys: 0..<60, limit: limit, slack: 200_000), 0)
        XCTAssertLessThanOrEqual(try diskUsage(directory.path), limit + 200_000, "du: the limit and two writes in progress")
    }

    func testTwoProcessesShareOneDirectoryWithinItsLimit() throws {
        let limit = 600_000
        let children = try [0, 100].map { first in
            try ChildProcess(test: Self.writerTest, environment: [
                "LAZYIMG_TEST_CACHE_DIR": directory.path, "LAZYIMG_TEST_LIMIT": "\(limit)",
                "LAZYIMG_TEST_FIRST": "\(first)", "LAZYIMG_TEST_COUNT": "40", "LAZYIMG_TEST_ROUNDS": "3",
            ])
        }
        for child in children { XCTAssertEqual(child.wait(), 0, "a writer read a wrong body, or failed") }
        XCTAssertLessThanOrEqual(try diskUsage(directory.path), limit, "du, each holding room for the other's writes")
        let found = try checkIntact(keys: 0..<140, limit: limit)
        XCTAssertGreaterThan(found, 0)
        let cache = try DiskCache(directory: directory.path, limit: limit)
        cache.loadIndex()
        XCTAssertEqual(Int(cache.statistics.bytes), bytesInSubdirectories(), "the shared journal kept one exact total")
    }
}
#endif
