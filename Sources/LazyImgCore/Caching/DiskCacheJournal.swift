import Glibc

/// The log through which processes sharing one cache directory tell each other what
/// they added and removed, and the room their writes in progress hold, so each keeps
/// an exact total without rescanning.
///
/// Only read and written with the directory's file lock held. A header (magic, the
/// directory's format, a generation) is followed by fixed 64-byte records:
///
///     header  0 "LZDJ"  4 format (u16, `DiskCacheEntry.version`)  8 generation (u64)
///     record  0 operation (u8)  1 name length (u8)  4 size (u64)  12 name
///
/// Every byte may have been written by another process, or by anything else that
/// can write the file: a record with an unknown operation, a name that is not an
/// entry's, or a size beyond `maxRecordSize` is skipped, and a log larger than
/// `maxBytes` is not read at all (the caller empties it). A record torn by a crash is
/// overwritten by the next append, which writes at the last whole record's end. When
/// the log grows past a bound (`DiskCacheSpace.journalCompactAt`: its blocks count
/// against the cache's limit) it is emptied and its generation bumped: a process that sees
/// another generation than it knew rebuilds its index from the directory instead.
/// The directory itself stays the truth; the log only spares the scans.
struct DiskCacheJournal {
    enum Operation: UInt8 {
        case add = 1
        case remove = 2
        /// Room held for a write in progress (its size), and given back.
        case reserve = 3
        case release = 4
    }

    struct Record {
        var operation: Operation
        var name: String
        var size: Int
    }

    static let headerSize = 64
    static let recordSize = 64
    static let maxNameBytes = 52
    /// The most a log of any process grows to (`DiskCacheSpace` bounds it by this).
    static let maxBytes = 1 << 20
    /// Above any entry or reservation (those are at most the limit, and the decode
    /// and response limits bound them far below this), and small enough that the
    /// totals of a whole log of such records stay far from overflowing.
    static let maxRecordSize = 1 << 40
    private static let magic: [UInt8] = Array("LZDJ".utf8)

    enum Header: Equatable {
        case current(generation: UInt64)
        /// Written by a library whose entries are of an older format.
        case olderFormat
        /// Empty, or not a journal.
        case none
    }

    let fd: Int32

    func header() -> Header {
        var header = [UInt8](repeating: 0, count: Self.headerSize)
        let n = header.withUnsafeMutableBytes { pread(fd, $0.baseAddress, Self.headerSize, 0) }
        guard n == Self.headerSize, Array(header[0..<4]) == Self.magic else { return .none }
        guard UInt16(header[4]) | UInt16(header[5]) << 8 == DiskCacheEntry.version else { return .olderFormat }
        return .current(generation: (0..<8).reduce(UInt64(0)) { $0 | UInt64(header[8 + $1]) << UInt64(8 * $1) })
    }

    /// The generation in the header; writes a fresh header when there is none of
    /// this format.
    func generation() -> UInt64 {
        guard case .current(let generation) = header() else {
            reset(generation: 1)
            return 1
        }
        return generation
    }

    /// Empties the log under a new generation.
    func reset(generation: UInt64) {
        var header = Self.magic + [UInt8](repeating: 0, count: Self.headerSize - 4)
        header[4] = UInt8(truncatingIfNeeded: DiskCacheEntry.version)
        header[5] = UInt8(truncatingIfNeeded: DiskCacheEntry.version >> 8)
        for i in 0..<8 { header[8 + i] = UInt8(truncatingIfNeeded: generation >> UInt64(8 * i)) }
        _ = ftruncate(fd, 0)
        _ = DiskCacheFiles.writeAll(fd, header)
    }

    /// Where the last whole record ends.
    func end() -> Int {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return Self.headerSize }
        let size = max(Self.headerSize, Int(info.st_size))
        return size - (size - Self.headerSize) % Self.recordSize
    }

    /// The whole records between two offsets (`end()` values), with those that are
    /// not a valid record skipped. Empty when more than `maxBytes` lie between them.
    func records(from start: Int, to end: Int) -> [Record] {
        guard end > start, end - start <= Self.maxBytes else { return [] }
        var bytes = [UInt8](repeating: 0, count: end - start)
        let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, end - start, off_t(start)) }
        guard n == end - start else { return [] }
        return stride(from: 0, to: bytes.count - Self.recordSize + 1, by: Self.recordSize).compactMap { at in
            let nameLength = Int(bytes[at + 1])
            guard let operation = Operation(rawValue: bytes[at]), nameLength <= Self.maxNameBytes else { return nil }
            let size = (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[at + 4 + $1]) << UInt64(8 * $1) }
            let name = String(decoding: bytes[at + 12..<at + 12 + nameLength], as: UTF8.self)
            guard size <= UInt64(Self.maxRecordSize), DiskCache.isEntryName(name) else { return nil }
            return Record(operation: operation, name: name, size: Int(size))
        }
    }

    /// Appends one record; returns the new end.
    @discardableResult
    func append(_ operation: Operation, _ name: String, size: Int) -> Int {
        var record = [UInt8](repeating: 0, count: Self.recordSize)
        let nameBytes = Array(name.utf8.prefix(Self.maxNameBytes))
        record[0] = operation.rawValue
        record[1] = UInt8(nameBytes.count)
        for i in 0..<8 { record[4 + i] = UInt8(truncatingIfNeeded: UInt64(clamping: size) >> UInt64(8 * i)) }
        record.replaceSubrange(12..<12 + nameBytes.count, with: nameBytes)
        let at = end()
        return DiskCacheFiles.writeAll(fd, record, at: at) ? at + Self.recordSize : at
    }
}
