/// The disk cache's picture of its directory: every entry's file name, size and
/// allocated size (`DiskCacheSpace.charge`) in least-recently-used order, and their
/// totals. Not thread-safe: `DiskCache` keeps it
/// behind its lock.
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
        totalSize += size
        totalCharge += charge
    }

    mutating func touch(_ name: String) {
        if let slot = slotByName[name] { entries.touch(slot) }
    }

    mutating func remove(_ name: String) {
        guard let slot = slotByName.removeValue(forKey: name) else { return }
        totalSize -= entries[slot].size
        totalCharge -= entries[slot].charge
        entries.remove(slot)
    }

    /// The least recently used entry's name.
    var oldestName: String? { entries.oldest >= 0 ? entries[entries.oldest].name : nil }
}
