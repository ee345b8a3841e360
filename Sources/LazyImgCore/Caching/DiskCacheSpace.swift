import Glibc

/// What the cache's directory takes on disk as `du` counts it: allocated blocks, not
/// bytes. A 1-byte entry takes a whole block, every shard directory takes at least
/// one, and the journal grows to its compaction bound before it is emptied. The
/// limit bounds the sum of all of it, so the entries get what is left.
///
/// Not thread-safe: `DiskCache` keeps it behind its lock.
struct DiskCacheSpace {
    /// The file system's allocation unit (`f_frsize`): what a file's size is rounded
    /// up to.
    let blockSize: Int
    /// The most the journal ever takes: it is emptied once an append passes
    /// `journalCompactAt`, so it holds at most that plus one record.
    let journalCompactAt: Int
    let journalBytes: Int
    /// The allocated bytes of the top directory and of each shard directory (0 until
    /// made), as last measured. Directories grow when names are added and never
    /// shrink, so they are measured again after each write.
    private var topBytes = 0
    private var shardBytes = [Int](repeating: 0, count: 256)
    private(set) var directoryBytes = 0

    /// `limit` sizes the journal: 1/64 of it, between one block and
    /// `DiskCacheJournal.maxBytes`, so a small cache keeps a small journal (compacting
    /// more often costs other processes a rescan of a small directory).
    init(directory: DiskCacheDirectory, limit: Int) {
        var info = statvfs()
        let unit = fstatvfs(directory.fd, &info) == 0 ? Int(info.f_frsize) : 0
        blockSize = unit > 0 && unit <= 1 << 20 ? unit : 4096
        let journalBlocks = min(max(limit / 64 / blockSize, 1), max(DiskCacheJournal.maxBytes / blockSize, 1))
        journalBytes = journalBlocks * blockSize
        journalCompactAt = journalBytes - DiskCacheJournal.recordSize
    }

    /// What everything but the entries takes: directories and the journal's bound
    /// (the lock file is empty, so it takes no block).
    var overhead: Int { directoryBytes.addingClamped(journalBytes) }

    /// Room held for a write in progress besides its file: its name may grow its
    /// shard directory by a block, or two when ext4 turns a one-block directory into
    /// an indexed one; a new shard directory takes one.
    var directoryGrowthPerWrite: Int { 2 * blockSize }

    /// An entry's size on disk: its bytes rounded up to whole blocks, or what the file
    /// system reports when that is more (`allocated`, from `st_blocks`).
    /// Saturating: sizes come from files and journal records others may have made.
    func charge(size: Int, allocated: Int = 0) -> Int {
        max(max(0, size).addingClamped(blockSize - 1) / blockSize * blockSize, allocated)
    }

    /// Measures the top directory and every shard directory again.
    mutating func measureAll(_ directory: DiskCacheDirectory) {
        topBytes = Self.allocated(directory.fd)
        for shard in 0..<shardBytes.count { shardBytes[shard] = Self.allocated(DiskCache.shards[shard][...], in: directory) }
        directoryBytes = shardBytes.reduce(topBytes) { $0.addingClamped($1) }
    }

    /// Measures the shard directory holding `name` again (and the top directory when
    /// the shard is new: its name was added there).
    mutating func measureShard(of name: String, in directory: DiskCacheDirectory) {
        guard let shard = Int(name.prefix(2), radix: 16), shard < shardBytes.count else { return }
        let was = shardBytes[shard]
        shardBytes[shard] = Self.allocated(name.prefix(2), in: directory)
        directoryBytes = max(0, directoryBytes - was).addingClamped(shardBytes[shard])
        if was == 0 {
            let top = Self.allocated(directory.fd)
            directoryBytes = max(0, directoryBytes - topBytes).addingClamped(top)
            topBytes = top
        }
    }

    /// Allocated bytes of a shard directory, as `du` counts them; 0 when absent.
    private static func allocated(_ shard: Substring, in directory: DiskCacheDirectory) -> Int {
        directory.withShard(shard) { allocated($0) } ?? 0
    }

    private static func allocated(_ fd: Int32) -> Int {
        var info = stat()
        return fstat(fd, &info) == 0 ? DiskCacheDirectory.allocatedBytes(info) : 0
    }
}
