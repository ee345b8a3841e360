/// A least-recently-used cache of decoded images, bounded by the bytes their pixels
/// hold. Not thread-safe: the loader keeps it inside its state lock.
///
/// Entries live in one array linked into a recency list by index, so a hit moves no
/// memory and allocates nothing.
public struct MemoryCache {
    private struct Entry {
        var key: CacheKey
        var image: DecodedImage?
        var cost: Int
        var newer: Int  // toward `newest`; -1 at the end
        var older: Int  // toward `oldest`; -1 at the end
    }

    public private(set) var capacity: Int
    public private(set) var totalCost = 0
    private var entries: [Entry] = []
    private var freeSlots: [Int] = []
    private var slotByKey: [CacheKey: Int] = [:]
    private var newest = -1
    private var oldest = -1

    public init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    public var count: Int { slotByKey.count }

    /// The image for `key`, now the most recently used; nil on a miss.
    public mutating func image(for key: CacheKey) -> DecodedImage? {
        slot(for: key).flatMap { image(atSlot: $0) }
    }

    /// Where `key`'s image is, for `image(atSlot:)`; nil on a miss.
    func slot(for key: CacheKey) -> Int? {
        slotByKey[key]
    }

    /// The image in a slot `slot(for:)` just returned, now the most recently used.
    mutating func image(atSlot slot: Int) -> DecodedImage? {
        unlink(slot)
        linkAsNewest(slot)
        return entries[slot].image
    }

    /// The image for `key` without touching its recency.
    public func peek(_ key: CacheKey) -> DecodedImage? {
        slotByKey[key].flatMap { entries[$0].image }
    }

    /// Stores `image`, evicting the least recently used entries to stay within
    /// `capacity`. An image larger than the whole cache is not stored.
    public mutating func insert(_ image: DecodedImage, for key: CacheKey) {
        remove(key)
        let cost = image.byteCount
        guard cost <= capacity else { return }
        let entry = Entry(key: key, image: image, cost: cost, newer: -1, older: -1)
        let slot: Int
        if let reused = freeSlots.popLast() {
            slot = reused
            entries[slot] = entry
        } else {
            slot = entries.count
            entries.append(entry)
        }
        slotByKey[key] = slot
        linkAsNewest(slot)
        totalCost += cost
        evict(downTo: capacity)
    }

    public mutating func remove(_ key: CacheKey) {
        guard let slot = slotByKey.removeValue(forKey: key) else { return }
        unlink(slot)
        totalCost -= entries[slot].cost
        entries[slot].image = nil
        freeSlots.append(slot)
    }

    /// Evicts least recently used entries until at most `limit` bytes remain.
    public mutating func evict(downTo limit: Int) {
        while totalCost > limit, oldest >= 0 {
            remove(entries[oldest].key)
        }
    }

    public mutating func removeAll() {
        self = MemoryCache(capacity: capacity)
    }

    // Inlined: a memory hit runs both, and the calls cost as much as their bodies.
    @inline(__always)
    private mutating func unlink(_ slot: Int) {
        let (newer, older) = (entries[slot].newer, entries[slot].older)
        if newer >= 0 { entries[newer].older = older } else { newest = older }
        if older >= 0 { entries[older].newer = newer } else { oldest = newer }
        entries[slot].newer = -1
        entries[slot].older = -1
    }

    @inline(__always)
    private mutating func linkAsNewest(_ slot: Int) {
        entries[slot].older = newest
        entries[slot].newer = -1
        if newest >= 0 { entries[newest].newer = slot }
        newest = slot
        if oldest < 0 { oldest = slot }
    }
}
