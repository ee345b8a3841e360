/// The disk cache's picture of its directory: every entry's file name, size and
/// allocated size (`DiskCacheSpace.charge`) in least-recently-used order, and their
/// totals. Not thread-safe: `DiskCache` keeps it behind its lock.
///
/// Sizes come from the files and from other processes' journal records, so the
/// totals saturate instead of trapping: a hostile size makes the cache evict, never
/// crash.
///
/// Touching an entry on a hit and finding the oldest to evict are constant time, so
/// the index serves 100k entries as well as ten.
struct DiskCacheIndex {
    private struct Entry {
        var name: String
        var size: Int
        var charge: Int
    }

    private var entries = RecencySlots<Entry>()
    private var slotByName: [String: Int] = [:]
    private(set) var totalSize = 0
    /// What the entries take on disk: what the limit bounds.
    private(set) var totalCharge = 0

    var count: Int { slotByName.count }

    /// Adds or replaces `name` as the most recently used entry.
    mutating func insert(_ name: String, size: Int, charge: Int) {
        remove(name)
        slotByName[name] = entries.insertAsNewest(Entry(name: name, size: size, charge: charge))
        totalSize = totalSize.addingClamped(max(0, size))
        totalCharge = totalCharge.addingClamped(max(0, charge))
    }

    mutating func touch(_ name: String) {
        if let slot = slotByName[name] { entries.touch(slot) }
    }

    mutating func remove(_ name: String) {
        guard let slot = slotByName.removeValue(forKey: name) else { return }
        totalSize = max(0, totalSize - max(0, entries[slot].size))
        totalCharge = max(0, totalCharge - max(0, entries[slot].charge))
        entries.remove(slot)
    }

    /// The least recently used entry's name.
    var oldestName: String? { entries.oldest >= 0 ? entries[entries.oldest].name : nil }
}
