import Glibc

/// A size-bounded, crash-safe cache of byte blobs in one directory, shared safely by
/// every thread and process that opens it.
///
/// Layout: `<dir>/<2 hex>/<32 hex>-<16 hex>`: the first part names the key's group
/// (the URL: its first two digits are the shard), the second its variant (the
/// original, or one thumbnail box). Both are SHA-256 digests, never taken from the
/// URL's text, so no URL can reach outside the directory or pick another's file.
/// `.tmp-<pid>.<n>` files in a shard are writes in progress (in the shard, so the
/// rename into place stays within one directory: a rename across directories takes
/// a lock the whole file system shares). `<dir>/lock` is the `flock` every change
/// takes, and `<dir>/journal` tells other processes what changed (`DiskCacheJournal`).
/// Every file is reached through `DiskCacheDirectory`: never through a symbolic
/// link, never a FIFO, device or another user's file.
///
/// Guarantees:
/// - An entry is written to a temp file and renamed into place, so readers see the
///   old file or the new one, never half of one; its length and CRC-32 are checked
///   on every read, and a torn or damaged file is deleted, never returned.
/// - The limit bounds the directory as `du` counts it (`DiskCacheSpace`): entries
///   in whole blocks, directories, the journal's bound, and room reserved for every
///   write in progress in any process (through the journal) before its temp file
///   is made, least recently used entries evicted first. So the directory passes
///   the limit by at most one entry (a file system allocating more than the
///   rounded size). A limit too small for the fixed part and one entry stores
///   nothing.
/// - A failed write (disk full, read-only) is counted and leaves every existing
///   entry as it was.
/// - A durable write is fsync'd before its rename, so a power loss keeps the new
///   entry or the one it replaced; anything torn all the same is deleted on read.
/// - Nothing read from the directory traps: entries, journal records and file
///   sizes and times are checked, and the totals made of them saturate.
/// - A directory of an older format is emptied when first opened (its journal says
///   so); an older entry that appears later reads as damaged.
///
/// Blocking: every method does file I/O except `statistics`; call them off the
/// host's thread.
public final class DiskCache: Sendable {
    public struct Key: Hashable, Sendable {
        /// What `remove(group:)` removes together: the URL, as its bytes.
        public var group: [UInt8]
        /// Whose copy it is: the digest of the credentials of the request that
        /// fetched it (`DataRequest.credentialScope`); empty for a request that sent
        /// none. Entries of other credentials are other entries.
        public var credentials: [UInt8]
        /// Which of the group's blobs: "" for the original bytes.
        public var variant: String

        public init(group: some Sequence<UInt8>, credentials: [UInt8] = [], variant: String = "") {
            self.group = Array(group)
            self.credentials = credentials
            self.variant = variant
        }

        public init(group: String, credentials: [UInt8] = [], variant: String = "") {
            self.init(group: group.utf8, credentials: credentials, variant: variant)
        }

        /// The entries of one URL fetched with `request`'s credentials: the URL's
        /// bytes exactly, as cache keys compare them.
        public init(request: DataRequest, variant: String = "") {
            self.init(group: request.url.bytes, credentials: request.credentialScope, variant: variant)
        }
    }

    public struct Entry: Sendable {
        public var metadata: HTTPCacheMetadata
        public var body: [UInt8]
    }

    public struct Statistics: Sendable, Equatable {
        public var hits: UInt64 = 0
        public var misses: UInt64 = 0
        public var writes: UInt64 = 0
        /// Writes that failed (disk full, read-only, I/O error).
        public var writeErrors: UInt64 = 0
        public var evictions: UInt64 = 0
        /// Torn or damaged entries found and deleted.
        public var corruptRemoved: UInt64 = 0
        /// The directory's entries, as last counted (0 until the index is loaded).
        public var bytes: UInt64 = 0
        public var entries: UInt64 = 0
    }

    private struct State {
        var index = DiskCacheIndex()
        var space: DiskCacheSpace
        /// Room held for this process's writes in progress: their temp files and the
        /// directory blocks their names may add. Writers reserve before they write,
        /// so any number of threads together stay within the limit.
        var reserved = 0
        /// Room other processes hold for theirs, from their journal records. Forgotten
        /// when the journal is emptied (the index is rebuilt then), and by a process
        /// killed mid-write until then: the cache is smaller meanwhile, never larger.
        var othersReserved = 0
        var allReserved: Int { reserved.addingClamped(othersReserved) }
        var isIndexed = false
        var journalGeneration: UInt64 = 0
        var journalOffset = 0
        var nextTemp = 0
    }

    public let directory: String
    public let limit: Int
    private let files: DiskCacheDirectory
    private let lockFD: Int32
    private let journal: DiskCacheJournal
    private let state: Locked<State>
    /// Kept apart from `state` so a stats call never waits behind file I/O.
    private let published = Locked(Statistics())
    /// Writes wait on it while `loadIndex` scans without holding `state`.
    private let scans = Condition()
    nonisolated(unsafe) private var scanning = 0  // guarded by scans

    /// Opens (creating when missing) the cache in `directory`, bounded to `limit` bytes.
    /// Throws `.io` when the directory cannot be created, written or locked, or is not
    /// the user's (`DiskCacheDirectory`). A lock or journal that is not a regular file
    /// of the user's (a symbolic link, a FIFO) is replaced, never written through.
    /// (Temp files left by processes that died are removed by the first index scan.)
    public init(directory: String, limit: Int) throws(LoaderError) {
        guard limit > 0 else { throw .io }
        let files = try DiskCacheDirectory(path: directory)
        let lockFD = try files.openOwnFile("lock")
        let journalFD: Int32
        do {
            journalFD = try files.openOwnFile("journal")
        } catch {
            close(lockFD)
            throw error
        }
        self.directory = directory
        self.limit = limit
        self.files = files
        self.lockFD = lockFD
        self.journal = DiskCacheJournal(fd: journalFD)
        self.state = Locked(State(space: DiskCacheSpace(directory: files, limit: limit)))
        withFileLock {
            if journal.header() == .olderFormat { _removeEveryFile() }
            _ = journal.generation()
        }
    }

    deinit {
        close(journal.fd)
        close(lockFD)
    }

    public var statistics: Statistics { published.withLock { $0 } }

    /// What the limit bounds, as last counted: the entries' allocated bytes, the
    /// writes in progress, the directories and the journal's bound.
    var chargedBytes: Int {
        state.withLock { $0.index.totalCharge.addingClamped($0.allReserved).addingClamped($0.space.overhead) }
    }

    // MARK: Reading

    /// The entry for `key`, now the most recently used; nil when absent. A torn or
    /// damaged file is deleted and reads as absent.
    public func read(_ key: Key) -> Entry? {
        let name = Self.fileName(key)
        let opened = files.withShard(name.prefix(2)) { DiskCacheDirectory.openFile(name, in: $0, flags: O_RDONLY) }
        guard case .file(let fd, _) = opened else {
            if case .unusable(let inode?) = opened {
                // A FIFO, a link or another user's file under an entry's name.
                removeCorrupt(name, inode: inode)
            } else {
                published.withLock { $0.misses += 1 }
            }
            return nil
        }
        defer { close(fd) }
        guard let (file, inode) = DiskCacheFiles.readAll(fd, maxBytes: min(limit, Int(Int32.max))) else {
            published.withLock { $0.misses += 1 }
            return nil
        }
        guard let entry = DiskCacheEntry(decoding: file) else {
            removeCorrupt(name, inode: inode)
            return nil
        }
        // A different key with the same digest: harmless, a miss.
        guard entry.key == Self.keyBytes(key) else {
            published.withLock { $0.misses += 1 }
            return nil
        }
        // The modification time is the recency a later scan sorts by; a read-only
        // directory just keeps the old one.
        _ = futimens(fd, nil)
        state.withLock { $0.index.touch(name) }
        published.withLock { $0.hits += 1 }
        return Entry(metadata: entry.metadata, body: Array(entry.body))
    }

    // MARK: Writing

    /// Stores `body` under `key`, replacing any entry, evicting least recently used
    /// ones first to stay within the limit. Returns false when the write failed
    /// (counted), or when the entry does not fit beside the fixed overhead and the
    /// other writes in progress even with every entry evicted (nothing is evicted then).
    ///
    /// `durable`: the bytes reach the disk (fsync) before the entry's name does, so a
    /// power loss keeps the entry whole or keeps the one it replaced. False for what
    /// can be made again without the network (thumbnails): a power loss may then
    /// leave it torn, which the first read detects and deletes; the fsync would cost
    /// a disk round trip on the path that delivers the image.
    @discardableResult
    public func store(_ key: Key, body: [UInt8], metadata: HTTPCacheMetadata, durable: Bool = true) -> Bool {
        guard let file = DiskCacheEntry.encode(key: Self.keyBytes(key), metadata: metadata, body: body) else { return false }
        let name = Self.fileName(key)
        scans.locked {
            while scanning > 0 { scans.wait() }
        }
        // The room the write will take is made and held before the temp file exists,
        // so the directory stays within the limit while it is being written; the
        // journal tells other processes, so they hold it too.
        let reservation = state.withLock { s -> (room: Int, temp: String)? in
            withFileLock {
                _sync(&s)
                let room = s.space.charge(size: file.count) + s.space.directoryGrowthPerWrite
                guard s.space.overhead.addingClamped(s.allReserved).addingClamped(room) <= limit else { return nil }
                _makeRoom(for: room, in: &s)
                s.reserved += room
                _log(.reserve, name, size: room, in: &s)
                s.nextTemp += 1
                return (room, "\(Self.tempPrefix)\(getpid()).\(s.nextTemp)")
            }
        }
        guard let (room, temp) = reservation else { return false }
        let allocated = files.withShard(name.prefix(2), create: true) { writeTemp(temp, in: $0, file, durable: durable) } ?? nil
        let stored = state.withLock { s -> Bool in
            withFileLock {
                _sync(&s)
                s.reserved -= room
                _log(.release, name, size: room, in: &s)
                guard let allocated else { return false }
                let charge = s.space.charge(size: file.count, allocated: allocated)
                _makeRoom(for: charge, in: &s)
                let renamed = files.withShard(name.prefix(2)) { renameat($0, temp, $0, name) == 0 } ?? false
                guard renamed else { return false }
                s.index.insert(name, size: file.count, charge: charge)
                s.space.measureShard(of: name, in: files)
                _log(.add, name, size: file.count, in: &s)
                return true
            }
        }
        if !stored { _ = files.withShard(name.prefix(2)) { unlinkat($0, temp, 0) } }
        published.withLock { stats in
            if stored { stats.writes += 1 } else { stats.writeErrors += 1 }
        }
        publishSize()
        return stored
    }

    /// Removes every entry of `group` (the original and every thumbnail of a URL).
    public func remove(group: some Sequence<UInt8>) {
        let prefix = Self.hex(SHA256.digest(Array(group)).prefix(16))
        state.withLock { s in
            withFileLock {
                _sync(&s)
                let names = files.withShard(prefix.prefix(2)) { DiskCacheDirectory.list($0) } ?? []
                for name in names where name.hasPrefix(prefix) && Self.isEntryName(name) {
                    _remove(name, in: &s)
                }
            }
        }
        publishSize()
    }

    /// Removes every entry.
    public func removeAll() {
        state.withLock { s in
            withFileLock {
                _removeEveryFile()
                s.index = DiskCacheIndex()
                s.isIndexed = true
                s.journalGeneration = journal.generation() &+ 1
                journal.reset(generation: s.journalGeneration)
                s.journalOffset = journal.end()
            }
        }
        publishSize()
    }

    /// Builds the index now rather than at the first write, or brings it up to date.
    /// The directory scan runs with no lock held, so reads go on meanwhile (writes
    /// wait: they need the total); what changed during it is replayed from the
    /// journal afterwards.
    public func loadIndex() {
        let start = state.withLock { s -> (generation: UInt64, offset: Int, space: DiskCacheSpace)? in
            s.isIndexed ? nil : withFileLock { (journal.generation(), journal.end(), s.space) }
        }
        guard let start else {
            state.withLock { s in withFileLock { _sync(&s) } }
            publishSize()
            return
        }
        scans.locked { scanning += 1 }
        let scanned = scanDirectory(start.space)
        state.withLock { s in
            withFileLock {
                // Unless a write built the index meanwhile, or the journal was emptied.
                if !s.isIndexed && journal.generation() == start.generation {
                    _adopt(scanned.index, scanned.space, generation: start.generation, journalOffset: start.offset, in: &s)
                }
                _sync(&s)
                _evictToLimit(&s)
            }
        }
        scans.locked {
            scanning -= 1
            scans.broadcast()
        }
        publishSize()
    }

    // MARK: Internals (the `_` methods run with `state` and the file lock held)

    /// Brings the index up to date: replays what other processes logged, or rebuilds
    /// it from the directory when it was never built or the log was emptied since.
    private func _sync(_ s: inout State) {
        var generation = journal.generation()
        if journal.end() > DiskCacheJournal.maxBytes {
            // No process writes that much before emptying it: not ours to read.
            generation &+= 1
            journal.reset(generation: generation)
        }
        if s.isIndexed && generation == s.journalGeneration {
            let end = journal.end()
            for record in journal.records(from: s.journalOffset, to: end) {
                switch record.operation {
                case .add:
                    s.index.insert(record.name, size: record.size, charge: s.space.charge(size: record.size))
                    s.space.measureShard(of: record.name, in: files)
                case .remove: s.index.remove(record.name)
                case .reserve: s.othersReserved = s.othersReserved.addingClamped(record.size)
                case .release: s.othersReserved = max(0, s.othersReserved - record.size)
                }
            }
            s.journalOffset = end
            return
        }
        _rebuild(&s, generation: generation)
    }

    /// The index from a scan of the directory, then the limit restored.
    private func _rebuild(_ s: inout State, generation: UInt64) {
        let scanned = scanDirectory(s.space)
        _adopt(scanned.index, scanned.space, generation: generation, journalOffset: journal.end(), in: &s)
        _evictToLimit(&s)
    }

    private func _adopt(_ index: DiskCacheIndex, _ space: DiskCacheSpace, generation: UInt64, journalOffset: Int,
                        in s: inout State) {
        s.index = index
        s.space = space
        s.othersReserved = 0
        s.isIndexed = true
        s.journalGeneration = generation
        s.journalOffset = journalOffset
    }

    /// A process killed between its rename and its journal record leaves a file no
    /// one counted: a scan counts it, and the limit is restored here.
    private func _evictToLimit(_ s: inout State) {
        _makeRoom(for: 0, in: &s)
    }

    /// Evicts least recently used entries until `room` more bytes fit within the
    /// limit beside the entries, the writes in progress and the fixed overhead, or
    /// until no entry is left.
    private func _makeRoom(for room: Int, in s: inout State) {
        var evicted: UInt64 = 0
        while s.index.totalCharge.addingClamped(s.allReserved).addingClamped(s.space.overhead).addingClamped(room) > limit,
              let victim = s.index.oldestName {
            _remove(victim, in: &s)
            evicted += 1
        }
        if evicted > 0 { published.withLock { $0.evictions += evicted } }
    }

    /// One pass over the shards: name, size, allocated size and modification time of
    /// every entry, inserted oldest first, the directories measured, and temp files of
    /// dead processes removed. Files are not opened; reads check them. Only regular
    /// files of this user are counted.
    private func scanDirectory(_ space: DiskCacheSpace) -> (index: DiskCacheIndex, space: DiskCacheSpace) {
        var space = space
        var found: [(name: String, size: Int, charge: Int, modified: timespec)] = []
        for shard in Self.shards {
            files.withShard(shard[...]) { shardFD in
                for name in DiskCacheDirectory.list(shardFD) {
                    if Self.isAbandonedTemp(name) { unlinkat(shardFD, name, 0) }
                    guard Self.isEntryName(name), let info = DiskCacheDirectory.status(of: name, in: shardFD),
                          DiskCacheDirectory.isOwnRegularFile(info) else { continue }
                    let size = Int(info.st_size)
                    found.append((name, size, space.charge(size: size, allocated: DiskCacheDirectory.allocatedBytes(info)),
                                  info.st_mtim))
                }
            }
        }
        var index = DiskCacheIndex()
        // Compared, not converted to one number: a time set far off would overflow it.
        for file in found.sorted(by: { ($0.modified.tv_sec, $0.modified.tv_nsec) < ($1.modified.tv_sec, $1.modified.tv_nsec) }) {
            index.insert(file.name, size: file.size, charge: file.charge)
        }
        space.measureAll(files)
        return (index, space)
    }

    private func _remove(_ name: String, in s: inout State) {
        _ = files.withShard(name.prefix(2)) { unlinkat($0, name, 0) }
        s.index.remove(name)
        _log(.remove, name, size: 0, in: &s)
    }

    /// Deletes every entry and temp file in every shard (names of other kinds stay).
    private func _removeEveryFile() {
        for shard in Self.shards {
            files.withShard(shard[...]) { shardFD in
                for name in DiskCacheDirectory.list(shardFD) where Self.isEntryName(name) || name.hasPrefix(Self.tempPrefix) {
                    unlinkat(shardFD, name, 0)
                }
            }
        }
    }

    /// Appends a record for the other processes (after `_sync`: the offset then
    /// stays this process's replay point), emptying the journal once past its bound.
    private func _log(_ operation: DiskCacheJournal.Operation, _ name: String, size: Int, in s: inout State) {
        s.journalOffset = journal.append(operation, name, size: size)
        _compactJournalIfLarge(&s)
    }

    /// Empties the journal once past its bound, so it never takes more than the room
    /// `DiskCacheSpace` counts for it.
    private func _compactJournalIfLarge(_ s: inout State) {
        guard s.journalOffset > s.space.journalCompactAt else { return }
        s.journalGeneration &+= 1
        journal.reset(generation: s.journalGeneration)
        s.journalOffset = journal.end()
    }

    /// Deletes a file found torn or damaged, unless another writer replaced it since.
    private func removeCorrupt(_ name: String, inode: UInt64) {
        state.withLock { s in
            withFileLock {
                _sync(&s)
                let current = files.withShard(name.prefix(2)) { DiskCacheDirectory.inode(of: name, in: $0) } ?? nil
                if current == inode { _remove(name, in: &s) }
            }
        }
        published.withLock {
            $0.corruptRemoved += 1
            $0.misses += 1
        }
        publishSize()
    }

    /// Writes the temp file and, when `durable`, makes its bytes durable before the
    /// caller renames it: without the fsync a power loss could keep the rename but
    /// not the data, leaving an empty or partial file under the entry's name (a read
    /// would find it torn and delete it, but the entry it replaced would be lost
    /// too). Returns the file's allocated bytes (`st_blocks`), or nil on failure.
    private func writeTemp(_ temp: String, in shardFD: Int32, _ file: [UInt8], durable: Bool) -> Int? {
        guard case .file(let fd, _) = DiskCacheDirectory.openFile(temp, in: shardFD, flags: O_WRONLY | O_CREAT | O_EXCL)
        else { return nil }
        let written = DiskCacheFiles.writeAll(fd, file) && (!durable || fsync(fd) == 0)
        var info = stat()
        let allocated = written && fstat(fd, &info) == 0 ? DiskCacheDirectory.allocatedBytes(info) : 0
        return close(fd) == 0 && written ? allocated : nil
    }

    private static let tempPrefix = ".tmp-"

    /// Whether `name` is a temp file a crash left behind: one whose process (the pid
    /// in its name) no longer runs. Another process's write in progress is not.
    private static func isAbandonedTemp(_ name: String) -> Bool {
        guard name.hasPrefix(tempPrefix) else { return false }
        let pid = Int32(name.dropFirst(tempPrefix.count).split(separator: ".").first ?? "") ?? 0
        return pid <= 0 || (pid != getpid() && kill(pid, 0) != 0 && errno == ESRCH)
    }

    private func withFileLock<T>(_ body: () -> T) -> T {
        while flock(lockFD, LOCK_EX) != 0 && errno == EINTR {}
        defer { flock(lockFD, LOCK_UN) }
        return body()
    }

    private func publishSize() {
        let (bytes, count) = state.withLock { s in (s.index.totalSize, s.index.count) }
        published.withLock {
            $0.bytes = UInt64(bytes)
            $0.entries = UInt64(count)
        }
    }

    // MARK: Naming

    static let shards: [String] = (0..<256).map { hex([UInt8($0)]) }

    /// The group's digest, then one of the credentials and variant together: a URL's
    /// entries of every credential share the prefix `remove(group:)` looks for.
    static func fileName(_ key: Key) -> String {
        hex(SHA256.digest(key.group).prefix(16)) + "-" + hex(SHA256.digest(variantBytes(key)).prefix(8))
    }

    /// Whether `name` is one `fileName` makes: 32 hex digits, "-", 16 hex digits.
    /// Names from the journal are checked with it before they reach a file call.
    static func isEntryName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard bytes.count == 49, bytes[32] == UInt8(ascii: "-") else { return false }
        return bytes.indices.allSatisfy { i in
            i == 32 || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i])
                || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(bytes[i])
        }
    }

    /// The full key as stored in the entry: the group's length, the group, then the
    /// credentials' length, the credentials and the variant.
    static func keyBytes(_ key: Key) -> [UInt8] {
        let group = key.group
        let length = UInt32(clamping: group.count)
        return (0..<4).map { UInt8(truncatingIfNeeded: length >> UInt32(8 * $0)) } + group + variantBytes(key)
    }

    private static func variantBytes(_ key: Key) -> [UInt8] {
        [UInt8(clamping: key.credentials.count)] + key.credentials.prefix(255) + Array(key.variant.utf8)
    }

    private static func hex(_ bytes: some Collection<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes { text += [digits[Int(byte >> 4)], digits[Int(byte & 15)]] }
        return String(decoding: text, as: UTF8.self)
    }
}
