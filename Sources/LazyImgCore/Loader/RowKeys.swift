/// The list's rows: one cache key per row (nil: no image), made once when the rows
/// arrive, and beside each where the row's image lies in the memory cache.
///
/// Every row whose image is cached knows its slot: the rows look their keys up when
/// they arrive, and each image cached later is noted on every row with its key
/// (`noteCached`, in the same hold of the front lock as the insert). So a request
/// tells a hit or a miss from its row's one entry, never probing the cache by key:
/// a miss, the common case while a list moves, reads one cold line instead of the
/// row's key, a filter and the cache's table (docs/performance.md, "Rows that know
/// their slot"). An entry left stale by an eviction names a generation its slot no
/// longer holds, and answers nothing.
///
/// Keys and slot references live and change together here, so a reference can only
/// ever describe the key of its own row.
struct RowKeys {
    // What a request reads comes first (`LoaderFront`): the entries and the count.
    private var entries: [Entry]
    /// The rows, stored rather than read from an array's storage: a request checks
    /// its row against it without touching a line of `keys`.
    private(set) var count = 0
    private var keys: [CacheKey?]
    /// The rows of each key hash, chained: the first row, and each row's next row
    /// with the same hash (-1: none). Only `noteCached` walks them.
    private var firstRowOfHash: [Int: Int] = [:]
    private var nextRowOfHash: [Int] = []

    /// What a request reads of its row, in 24 bytes.
    private struct Entry {
        var slot: CacheSlotRef
        /// Bit 0: the row has an image; 1: its URL is loadable with file URLs
        /// allowed; 2: loadable with them refused.
        let flags: UInt8

        init(_ key: CacheKey?, slot: CacheSlotRef) {
            self.slot = slot
            guard let key else { flags = 0; return }
            flags = 1 | (key.isLoadable(allowingFiles: true) ? 2 : 0) | (key.isLoadable(allowingFiles: false) ? 4 : 0)
        }
    }

    /// Rows for `keys` that know of no cached image yet: made without the cache,
    /// so without its lock; `noteCachedImages(in:)` then tells them, in the lock.
    init(_ keys: [CacheKey?]) {
        self.keys = []
        entries = []
        self.keys.reserveCapacity(keys.count)
        entries.reserveCapacity(keys.count)
        nextRowOfHash.reserveCapacity(keys.count)
        append(contentsOf: keys, in: nil)
    }

    /// Every row whose image `cache` holds now knows its slot. Walks the rows or the
    /// cache, whichever is shorter: a new list of 100,000 rows is noted from the few
    /// hundred images cached, so the lock it is called in is held for those.
    mutating func noteCachedImages(in cache: MemoryCache) {
        guard cache.count > 0 else { return }
        if count <= cache.count {
            for row in 0..<count {
                guard let key = keys[row], let slot = cache.slotRef(for: key) else { continue }
                entries[row].slot = slot
            }
        } else {
            cache.forEachSlot { key, slot in noteCached(key, at: slot) }
        }
    }

    subscript(row: Int) -> CacheKey? { keys[row] }

    /// Appends rows for `more`, each knowing where `cache` holds its image (none
    /// when `cache` is nil).
    mutating func append(contentsOf more: [CacheKey?], in cache: MemoryCache?) {
        // No reserveCapacity for the page: reserving an exact size each time copies
        // every row so far on every page (a feed of 100,000 rows by pages of 100
        // spent 173 ms in appends, `make bench-request`), where appending grows the
        // arrays geometrically.
        for key in more {
            let row = keys.count
            keys.append(key)
            entries.append(Entry(key, slot: key.flatMap { cache?.slotRef(for: $0) } ?? .none))
            nextRowOfHash.append(-1)
            guard let key else { continue }
            // Newest first: a row's next is the row with the same hash before it.
            if let first = firstRowOfHash.updateValue(row, forKey: key.presenceHash) { nextRowOfHash[row] = first }
        }
        count = keys.count
    }

    /// Whether `row` has an image. `row` must be in range.
    func hasImage(row: Int) -> Bool {
        entries.withUnsafeBufferPointer { $0[row].flags } & 1 != 0
    }

    /// `CacheKey.isLoadable` of `row`'s key (nil: no image). `row` must be in range.
    func isLoadable(row: Int, allowingFiles: Bool) -> Bool? {
        let flags = entries.withUnsafeBufferPointer { $0[row].flags }
        guard flags & 1 != 0 else { return nil }
        return flags & (allowingFiles ? 2 : 4) != 0
    }

    /// The slot `row`'s image lies in, if it is cached; perhaps stale (`MemoryCache`
    /// checks). `row` must be in range.
    func slot(ofRow row: Int) -> CacheSlotRef {
        entries.withUnsafeBufferPointer { $0[row].slot }
    }

    /// `key`'s image was just cached at `slot`: every row with that key now knows.
    mutating func noteCached(_ key: CacheKey, at slot: CacheSlotRef) {
        var row = firstRowOfHash[key.presenceHash] ?? -1
        while row >= 0 {
            if keys[row] == key { entries[row].slot = slot }
            row = nextRowOfHash[row]
        }
    }
}
