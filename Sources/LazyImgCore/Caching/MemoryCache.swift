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
    /// The session budget this cache reports to (see SessionMemoryBudget); nil for a
    /// loader without a session.
    private var membership: SessionMemoryBudget.Membership?
    /// Each slot's insertion tick in the session, beside `entries` so that the hit
    /// path's entries stay as they are.
    private var ticks: [UInt64] = []
    /// The highest tick evicted from the old end: every image still here was used
    /// after that one.
    private var evictedTickFloor: UInt64 = 0

    public init(capacity: Int, membership: SessionMemoryBudget.Membership? = nil) {
        self.capacity = max(0, capacity)
        self.membership = membership
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
    /// Also not stored: an image larger than the session's whole budget. With a
    /// session, the caller then calls `SessionMemoryBudget.trim` without the lock.
    public mutating func insert(_ image: DecodedImage, for key: CacheKey) {
        defer { reportToSession() }
        removeUnreported(key)
        let cost = image.byteCount
        guard cost <= capacity, cost <= membership?.budget.limit ?? cost else { return }
        let entry = Entry(key: key, image: image, cost: cost, newer: -1, older: -1)
        let tick = membership?.nextTick() ?? 0
        let slot: Int
        if let reused = freeSlots.popLast() {
            slot = reused
            entries[slot] = entry
            ticks[slot] = tick
        } else {
            slot = entries.count
            entries.append(entry)
            ticks.append(tick)
        }
        slotByKey[key] = slot
        linkAsNewest(slot)
        totalCost += cost
        evictUnreported(downTo: capacity)
    }

    public mutating func remove(_ key: CacheKey) {
        removeUnreported(key)
        reportToSession()
    }

    /// Evicts least recently used entries until at most `limit` bytes remain.
    public mutating func evict(downTo limit: Int) {
        evictUnreported(downTo: limit)
        reportToSession()
    }

    public mutating func removeAll() {
        self = MemoryCache(capacity: capacity, membership: membership)
        reportToSession()
    }

    private mutating func removeUnreported(_ key: CacheKey) {
        guard let slot = slotByKey.removeValue(forKey: key) else { return }
        if slot == oldest { evictedTickFloor = max(evictedTickFloor, ticks[slot]) }
        unlink(slot)
        totalCost -= entries[slot].cost
        entries[slot].image = nil
        freeSlots.append(slot)
    }

    private mutating func evictUnreported(downTo limit: Int) {
        while totalCost > limit, oldest >= 0 {
            removeUnreported(entries[oldest].key)
        }
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

// MARK: The session's memory budget

extension MemoryCache {
    /// Starts reporting to a session's budget (a loader joins once, at creation).
    mutating func joinSession(_ membership: SessionMemoryBudget.Membership) {
        self.membership = membership
        reportToSession()
    }

    /// Stops counting in the session's budget (the loader shuts down); the images stay.
    mutating func leaveSession() {
        membership = nil
    }

    /// For `SessionMemoryBudget.trim`: evicts the least recently used image unless
    /// its tick is above `bound`.
    mutating func evictOldest(notNewerThan bound: UInt64) -> SessionMemoryBudget.Eviction {
        guard let tick = oldestTick, tick <= bound, membership?.budget.isOver == true else {
            reportToSession()
            return .refused
        }
        remove(entries[oldest].key)
        return .evicted
    }

    /// How old the least recently used image is, for comparison across loaders; nil
    /// when empty.
    private var oldestTick: UInt64? {
        oldest >= 0 ? max(ticks[oldest], evictedTickFloor) : nil
    }

    private func reportToSession() {
        membership?.report(bytes: totalCost, oldestTick: oldestTick)
    }
}
