/// A least-recently-used cache of decoded images, bounded by the bytes their pixels
/// hold. Not thread-safe: the loader keeps it inside its state lock.
///
/// Entries live in one array linked into a recency list by index, so a hit moves no
/// memory and allocates nothing.
public struct MemoryCache {
    private struct Entry {
        var key: CacheKey
        var image: DecodedImage
        var cost: Int
    }

    public private(set) var capacity: Int
    public private(set) var totalCost = 0
    private var entries = RecencySlots<Entry>()
    private var slotByKey: [CacheKey: Int] = [:]

    public init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    public var count: Int { slotByKey.count }

    /// The image for `key`, now the most recently used; nil on a miss.
    public mutating func image(for key: CacheKey) -> DecodedImage? {
        guard let slot = slotByKey[key] else { return nil }
        entries.touch(slot)
        return entries[slot].image
    }

    /// The image for `key` without touching its recency.
    public func peek(_ key: CacheKey) -> DecodedImage? {
        slotByKey[key].map { entries[$0].image }
    }

    /// Stores `image`, evicting the least recently used entries to stay within
    /// `capacity`. An image larger than the whole cache is not stored.
    public mutating func insert(_ image: DecodedImage, for key: CacheKey) {
        remove(key)
        let cost = image.byteCount
        guard cost <= capacity else { return }
        slotByKey[key] = entries.insertAsNewest(Entry(key: key, image: image, cost: cost))
        totalCost += cost
        evict(downTo: capacity)
    }

    public mutating func remove(_ key: CacheKey) {
        guard let slot = slotByKey.removeValue(forKey: key) else { return }
        totalCost -= entries[slot].cost
        entries.remove(slot)
    }

    /// Evicts least recently used entries until at most `limit` bytes remain.
    public mutating func evict(downTo limit: Int) {
        while totalCost > limit, entries.oldest >= 0 {
            remove(entries[entries.oldest].key)
        }
    }

    public mutating func removeAll() {
        self = MemoryCache(capacity: capacity)
    }
}
