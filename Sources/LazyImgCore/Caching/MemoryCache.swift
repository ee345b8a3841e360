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
    /// The session's memory budget and what this cache tells it; nil for a loader
    /// without a session. One reference, apart from the entries: the hit path's data
    /// stays as it was.
    private var session: SessionShare?

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
    /// Also not stored: an image larger than the session's whole budget. With a
    /// session, the caller then calls `SessionMemoryBudget.trim` without the lock.
    public mutating func insert(_ image: DecodedImage, for key: CacheKey) {
        defer { reportToSession() }
        removeUnreported(key)
        let cost = image.byteCount
        guard cost <= capacity, cost <= session?.membership.budget.limit ?? cost else { return }
        let entry = Entry(key: key, image: image, cost: cost, newer: -1, older: -1)
        let slot: Int
        if let reused = freeSlots.popLast() {
            slot = reused
            entries[slot] = entry
        } else {
            slot = entries.count
            entries.append(entry)
        }
        session?.stamp(slot)
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
        let membership = session?.membership
        self = MemoryCache(capacity: capacity)
        if let membership { joinSession(membership) }
    }

    private mutating func removeUnreported(_ key: CacheKey) {
        guard let slot = slotByKey.removeValue(forKey: key) else { return }
        if slot == oldest { session?.evictedOldest(slot) }
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
        session = SessionShare(membership: membership, slots: entries.count)
        reportToSession()
    }

    /// Stops counting in the session's budget (the loader shuts down); the images stay.
    mutating func leaveSession() {
        session = nil
    }

    /// For `SessionMemoryBudget.trim`: evicts the least recently used image unless
    /// its tick is above `bound`.
    mutating func evictOldest(notNewerThan bound: UInt64) -> SessionMemoryBudget.Eviction {
        guard let tick = oldestTick, tick <= bound, session?.membership.budget.isOver == true else {
            reportToSession()
            return .refused
        }
        remove(entries[oldest].key)
        return .evicted
    }

    /// How old the least recently used image is, for comparison across loaders; nil
    /// when empty.
    private var oldestTick: UInt64? {
        guard let session, oldest >= 0 else { return nil }
        return session.tick(of: oldest)
    }

    private func reportToSession() {
        session?.membership.report(bytes: totalCost, oldestTick: oldestTick)
    }

    /// A cache's part in its session's budget. A class: it changes only on insert and
    /// eviction, under the loader's lock, like the cache that holds it.
    fileprivate final class SessionShare {
        let membership: SessionMemoryBudget.Membership
        /// Each slot's insertion tick in the session.
        private var ticks: [UInt64]
        /// The highest tick evicted from the old end: every image still cached was
        /// used after that one.
        private var evictedTickFloor: UInt64 = 0

        init(membership: SessionMemoryBudget.Membership, slots: Int) {
            self.membership = membership
            // Images cached before joining count as the oldest.
            ticks = Array(repeating: 0, count: slots)
        }

        func stamp(_ slot: Int) {
            let tick = membership.nextTick()
            if slot < ticks.count { ticks[slot] = tick } else { ticks.append(tick) }
        }

        func evictedOldest(_ slot: Int) {
            evictedTickFloor = max(evictedTickFloor, ticks[slot])
        }

        /// How old the image in `slot` counts as: its tick, or the floor if later.
        func tick(of slot: Int) -> UInt64 {
            max(ticks[slot], evictedTickFloor)
        }
    }
}
