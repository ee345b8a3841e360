#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_4 // ThreadSanitizer group 4 (see the Makefile's tsan)
import Dispatch
import Glibc
import TestSupport
import XCTest
@testable import LazyImgCore

/// What someone else who can write into the cache's directory may leave there: a
/// FIFO, a symbolic link or a hard link under a cache file's name, a shard that is a
/// link to another directory, files and directories of another user. On real files:
/// none of them blocks a thread, is written through, emptied or served.
final class DiskCacheHostileFileTests: XCTestCase {
    var directory: TemporaryDirectory!
    /// Files the cache must never touch.
    var outside: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
        outside = try TemporaryDirectory()
    }

    override func tearDown() {
        directory.remove()
        outside.remove()
    }

    private let key = DiskCache.Key(group: "http://x.test/a.jpg")

    /// Keys of their own: this class is in another sanitizer group than DiskCacheTests.
    private func numberedKey(_ i: Int) -> DiskCache.Key {
        DiskCache.Key(group: "http://x.test/\(i).jpg")
    }

    private func open(_ path: String? = nil) throws -> DiskCache {
        try DiskCache(directory: path ?? directory.path, limit: 64 << 20)
    }

    /// The path of `key`'s entry file.
    private func entryPath(_ key: DiskCache.Key) -> String {
        let name = DiskCache.fileName(key)
        return "\(directory.path)/\(name.prefix(2))/\(name)"
    }

    private let precious = Array("precious\n".utf8)

    /// A file outside the cache with known bytes (`precious`); returns its path.
    private func victim(_ name: String) -> String {
        write(outside.path + "/" + name, precious)
    }

    @discardableResult
    private func write(_ path: String, _ bytes: [UInt8]) -> String {
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        XCTAssertGreaterThanOrEqual(fd, 0, path)
        XCTAssertTrue(DiskCacheFiles.writeAll(fd, bytes))
        close(fd)
        return path
    }

    private func contents(_ path: String) -> [UInt8]? {
        let fd = Glibc.open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return DiskCacheFiles.readAll(fd, maxBytes: 1 << 20)?.bytes
    }

    private func fileType(_ path: String) -> mode_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : nil
    }

    /// Runs `body` on another thread; false when it has not returned after 10 s.
    /// `unblock` then runs, so that a thread stuck in open() can end.
    private func returnsPromptly(_ body: @escaping @Sendable () -> Void, unblock: () -> Void) -> Bool {
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            body()
            done.signal()
        }
        if done.wait(timeout: .now() + 10) == .success { return true }
        unblock()
        _ = done.wait(timeout: .now() + 10)
        return false
    }

    /// Opens `fifo` for writing without blocking once a reader waits, releasing it.
    private func releaseReader(of fifo: String) {
        let fd = Glibc.open(fifo, O_WRONLY | O_NONBLOCK)
        if fd >= 0 { close(fd) }
    }

    func testAFIFOUnderAnEntrysNameIsAMissThatNeverBlocks() throws {
        let cache = try open()
        XCTAssertTrue(cache.store(key, body: [1, 2, 3], metadata: HTTPCacheMetadata()))
        let path = entryPath(key)
        XCTAssertEqual(unlink(path), 0)
        XCTAssertEqual(mkfifo(path, 0o600), 0)
        let key = key
        let result = Locked<DiskCache.Entry??>(nil)
        XCTAssertTrue(returnsPromptly({ result.withLock { $0 = .some(cache.read(key)) } }, unblock: { releaseReader(of: path) }),
                      "read blocked in open() on a FIFO")
        XCTAssertEqual(result.withLock { $0 }.map { $0 == nil }, true, "a miss")
        XCTAssertNil(fileType(path), "the FIFO is removed")
        XCTAssertTrue(cache.store(key, body: [4], metadata: HTTPCacheMetadata()))
        XCTAssertEqual(cache.read(key)?.body, [4])
    }

    func testASymbolicLinkUnderAnEntrysNameIsNeitherFollowedNorServed() throws {
        let cache = try open()
        XCTAssertTrue(cache.store(key, body: [1, 2, 3], metadata: HTTPCacheMetadata()))
        // A whole valid entry, moved outside; the link points at it.
        let path = entryPath(key)
        let moved = outside.path + "/entry"
        XCTAssertEqual(rename(path, moved), 0)
        XCTAssertEqual(symlink(moved, path), 0)
        let entry = contents(moved)
        XCTAssertNil(cache.read(key), "not served through the link")
        XCTAssertNil(fileType(path), "the link is removed")
        XCTAssertTrue(contents(moved) == entry, "its target untouched")
    }

    func testAHardLinkUnderAnEntrysNameIsNotServed() throws {
        let cache = try open()
        XCTAssertTrue(cache.store(key, body: [1, 2, 3], metadata: HTTPCacheMetadata()))
        let kept = outside.path + "/entry"
        XCTAssertEqual(link(entryPath(key), kept), 0)
        XCTAssertNil(cache.read(key))
        XCTAssertNotNil(contents(kept), "the other name of the file stays")
    }

    func testAJournalOrLockThatIsALinkInAPreparedDirectoryIsReplacedNotWrittenThrough() throws {
        let journalVictim = victim("journal-target")
        let lockVictim = victim("lock-target")
        let hardVictim = victim("hard-target")
        let prepared = directory.path + "/prepared"
        XCTAssertEqual(mkdir(prepared, 0o700), 0)
        XCTAssertEqual(symlink(journalVictim, prepared + "/journal"), 0)
        XCTAssertEqual(symlink(lockVictim, prepared + "/lock"), 0)
        do {
            let cache = try open(prepared)
            for i in 0..<20 { XCTAssertTrue(cache.store(numberedKey(i), body: [UInt8(i)], metadata: HTTPCacheMetadata())) }
            XCTAssertEqual(cache.read(numberedKey(3))?.body, [3])
        }
        XCTAssertTrue(contents(journalVictim) == precious, "the link's target is untouched")
        XCTAssertTrue(contents(lockVictim) == precious)
        XCTAssertEqual(fileType(prepared + "/journal"), S_IFREG, "a journal of its own instead")
        XCTAssertEqual(fileType(prepared + "/lock"), S_IFREG)

        // The same once the directory is in use: another process then opens the link.
        let first = try open(prepared)
        XCTAssertEqual(unlink(prepared + "/journal"), 0)
        XCTAssertEqual(symlink(journalVictim, prepared + "/journal"), 0)
        let second = try open(prepared)
        XCTAssertTrue(second.store(numberedKey(30), body: [30], metadata: HTTPCacheMetadata()))
        XCTAssertTrue(first.store(numberedKey(31), body: [31], metadata: HTTPCacheMetadata()))
        XCTAssertTrue(contents(journalVictim) == precious)
        XCTAssertEqual(second.read(numberedKey(31))?.body, [31])

        // A hard link to a file elsewhere is the same file: replaced too.
        XCTAssertEqual(unlink(prepared + "/journal"), 0)
        XCTAssertEqual(link(hardVictim, prepared + "/journal"), 0)
        let third = try open(prepared)
        XCTAssertTrue(third.store(numberedKey(32), body: [32], metadata: HTTPCacheMetadata()))
        XCTAssertTrue(contents(hardVictim) == precious)
    }

    func testAJournalThatIsAFIFODoesNotBlockOpening() throws {
        XCTAssertEqual(mkfifo(directory.path + "/journal", 0o600), 0)
        let path = directory.path
        let opened = Locked(false)
        XCTAssertTrue(returnsPromptly({
            let cache = try? DiskCache(directory: path, limit: 1 << 20)
            opened.withLock { $0 = cache?.store(DiskCache.Key(group: "k"), body: [1], metadata: HTTPCacheMetadata()) == true }
        }, unblock: { releaseReader(of: path + "/journal") }), "open() blocked on the FIFO journal")
        XCTAssertTrue(opened.withLock { $0 })
        XCTAssertEqual(fileType(path + "/journal"), S_IFREG)
    }

    func testAShardThatIsALinkToAnotherDirectoryIsNeitherWrittenNorEmptied() throws {
        let name = DiskCache.fileName(key)
        let shard = "\(directory.path)/\(name.prefix(2))"
        // The other directory holds a valid entry of the key, and a file of any name.
        let elsewhere = try TemporaryDirectory()
        defer { elsewhere.remove() }
        do {
            let other = try DiskCache(directory: elsewhere.path, limit: 1 << 20)
            XCTAssertTrue(other.store(key, body: [7, 7], metadata: HTTPCacheMetadata()))
        }
        let target = "\(elsewhere.path)/\(name.prefix(2))"
        write(target + "/notes.txt", [1])
        XCTAssertEqual(symlink(target, shard), 0)

        let cache = try open()
        XCTAssertNil(cache.read(key), "the other directory's entry is not served")
        cache.removeAll()
        cache.loadIndex()
        XCTAssertEqual(cache.statistics.entries, 0, "nothing behind the link is counted")
        XCTAssertNotNil(contents("\(target)/\(name)"), "nothing behind the link is removed")
        XCTAssertNotNil(contents(target + "/notes.txt"))
        XCTAssertTrue(cache.store(key, body: [1], metadata: HTTPCacheMetadata()))
        XCTAssertEqual(fileType(shard), S_IFDIR, "a shard of its own instead of the link")
        XCTAssertEqual(contents("\(target)/\(name)").map { DiskCacheEntry(decoding: $0)?.body }, [7, 7],
                       "the write went to the cache's own shard")
        XCTAssertEqual(cache.read(key)?.body, [1])
    }

    func testTheDirectoryMayNotBeAnotherUsersOrBehindAnotherUsersLink() throws {
        guard geteuid() == 0 else { throw XCTSkip("making files of another user needs root") }
        let nobody: uid_t = 65534
        let theirs = directory.path + "/theirs"
        XCTAssertEqual(mkdir(theirs, 0o777), 0)
        XCTAssertEqual(chown(theirs, nobody, nobody), 0)
        XCTAssertThrowsError(try open(theirs), "another user's directory")

        let mine = directory.path + "/mine"
        let link = directory.path + "/link"
        XCTAssertEqual(mkdir(mine, 0o700), 0)
        XCTAssertEqual(symlink(mine, link), 0)
        XCTAssertNoThrow(try open(link), "the user's own link to the user's own directory")
        XCTAssertEqual(lchown(link, nobody, nobody), 0)
        XCTAssertThrowsError(try open(link), "another user's link")
    }

    func testFilesOfAnotherUserAreNotServed() throws {
        guard geteuid() == 0 else { throw XCTSkip("making files of another user needs root") }
        let cache = try open()
        XCTAssertTrue(cache.store(key, body: [1, 2, 3], metadata: HTTPCacheMetadata()))
        XCTAssertEqual(chown(entryPath(key), 65534, 65534), 0)
        XCTAssertNil(cache.read(key))
        let reopened = try open()
        reopened.loadIndex()
        XCTAssertEqual(reopened.statistics.entries, 0)
    }
}
#endif
