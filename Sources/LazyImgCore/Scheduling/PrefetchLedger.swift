/// Keeps account of images the loader fetched before anyone asked for them: shown
/// later (a hit) or never (waste), and stops prefetching while too many bytes wait
/// unseen.
struct PrefetchLedger {
    /// Fetched without a ticket and not shown yet: the row it was fetched for and
    /// its bytes on the wire.
    private var unseen: [CacheKey: (row: Int, bytes: Int)] = [:]
    private(set) var unseenBytes = 0
    let budgetBytes: Int

    init(budgetBytes: Int) {
        self.budgetBytes = budgetBytes
    }

    /// Prefetch may start while the bytes fetched and not yet shown are under budget.
    var allowsPrefetch: Bool { unseenBytes < budgetBytes }

    var isEmpty: Bool { unseen.isEmpty }

    /// The rows the unseen images were fetched for.
    var rows: [Int] { unseen.values.map(\.row) }

    mutating func fetched(_ key: CacheKey, row: Int, bytes: Int) {
        if let old = unseen.updateValue((row, bytes), forKey: key) { unseenBytes -= old.bytes }
        unseenBytes += bytes
    }

    /// Whether any prefetched image waits unseen: a memory hit skips the lookup when not.
    var holdsUnseen: Bool { !unseen.isEmpty }

    /// Whether the image of `key` was fetched unasked and waits unseen.
    func isUnseen(_ key: CacheKey) -> Bool {
        !unseen.isEmpty && unseen[key] != nil
    }

    /// The host asked for the image: returns true when it was a prefetched one.
    mutating func shown(_ key: CacheKey) -> Bool {
        guard let entry = unseen.removeValue(forKey: key) else { return false }
        unseenBytes -= entry.bytes
        return true
    }

    /// The image's row left the window unseen: returns its bytes, now wasted.
    mutating func abandon(_ key: CacheKey, row: Int) -> Int? {
        guard let entry = unseen[key], entry.row == row else { return nil }
        unseen[key] = nil
        unseenBytes -= entry.bytes
        return entry.bytes
    }

    /// Abandons every image whose row `isWanted` rejects; for large view changes,
    /// where walking the ledger is cheaper than walking the rows that left.
    mutating func abandonAll(where isUnwanted: (Int) -> Bool) -> (count: Int, bytes: Int) {
        var count = 0, bytes = 0
        for (key, entry) in unseen where isUnwanted(entry.row) {
            unseen[key] = nil
            unseenBytes -= entry.bytes
            count += 1
            bytes += entry.bytes
        }
        return (count, bytes)
    }
}
