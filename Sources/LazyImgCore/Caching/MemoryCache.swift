/// A cache of decoded images, bounded by the bytes their pixels hold, that evicts
/// the least recently used first, as second-chance (CLOCK) approximates it. Not
/// thread-safe: the loader keeps it inside its front lock.
///
/// The keys live in `RecencySlots`, linked in the order they were stored (or given
/// a second chance); what a hit reads lives in `entries`, at the same slot. A hit
/// only sets the entry's `referenced` bit, and only when it is clear, instead of
/// relinking three slots on every hit; eviction gives an entry with the bit set a
/// second chance, clearing the bit and moving it to the newest end, and evicts the
/// oldest one without.
public struct MemoryCache {
    private struct Entry {
        /// nil once the entry left; its generation stays, so a `CacheSlotRef` taken
        /// before still misses.
        var image: DecodedImage?
        var cost: Int
        /// Which store this is, for `CacheSlotRef`: unique per insert.
        var generation: UInt64
        /// Used since it was stored or last given a second chance.
        var referenced = false
        /// Fetched before anyone asked, and not yet shown by a request.
        var unseenPrefetch = false
    }

    public private(set) var capacity: Int
    public private(set) var totalCost = 0
    /// Bytes held beside the entries that count against `capacity` too: the loader's
    /// animation frames (`AnimationPlayers`).
    public private(set) var reservedBytes = 0
    /// Keys of evicted or removed images that carried an animation, for the loader to
    /// drop their players (`takeRemovedAnimations`).
    private var removedAnimations: [CacheKey] = []
    /// Indexed by the slots of `keys`.
    private var entries: [Entry] = []
    private var keys = RecencySlots<CacheKey>()
    private var slotByKey: [CacheKey: Int] = [:]
    /// The keys in `slotByKey`, for a miss told without probing it.
    private var presence = CachePresence()
    /// The session's memory budget and what this cache tells it; nil for a loader
    /// without a session. One reference, apart from the entries: the hit path's data
    /// stays as it was.
    private var session: SessionShare?
    private var lastGeneration: UInt64 = 0

    public init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    public var count: Int { slotByKey.count }

    /// The image for `key`, now recently used; nil on a miss.
    public mutating func image(for key: CacheKey) -> DecodedImage? {
        slotRef(for: key).flatMap { image(at: $0) }
    }

    /// Where `key`'s image is, for `image(at:)`, now and until it is evicted or
    /// replaced; nil on a miss.
    func slotRef(for key: CacheKey) -> CacheSlotRef? {
        guard presence.mayContain(key) else { return nil }
        return slotByKey[key].map(ref(toSlot:))
    }

    /// Calls `body` with every cached key and its slot.
    func forEachSlot(_ body: (CacheKey, CacheSlotRef) -> Void) {
        for (key, slot) in slotByKey { body(key, ref(toSlot: slot)) }
    }

    /// The reference to what slot `slot` holds now.
    private func ref(toSlot slot: Int) -> CacheSlotRef {
        CacheSlotRef(slot: slot, generation: entries[slot].generation)
    }

    /// The image `ref` was taken for, now recently used; nil when that entry has left
    /// the cache, even if its slot now holds another key's image. Inlined into the
    /// memory hit, like the two below: each call's entry and exit cost about as much
    /// as its body.
    @inline(__always)
    mutating func image(at ref: CacheSlotRef) -> DecodedImage? {
        // `.none` (a row never found) reads no entry: generations start at 1.
        guard ref.generation != 0, ref.slot >= 0, ref.slot < entries.count,
              entries[ref.slot].generation == ref.generation
        else { return nil }
        // Written only when it changes: a write first checks that the array is not
        // shared, a call of its own, and most hits find the bit already set.
        if !entries[ref.slot].referenced { entries[ref.slot].referenced = true }
        return entries[ref.slot].image
    }

    /// Whether the entry `ref` was taken for holds an image fetched unasked and not
    /// yet shown; it counts as shown from now on.
    @inline(__always)
    mutating func takeUnseenPrefetch(at ref: CacheSlotRef) -> Bool {
        guard ref.slot >= 0, ref.slot < entries.count, entries[ref.slot].generation == ref.generation,
              entries[ref.slot].unseenPrefetch else { return false }
        entries[ref.slot].unseenPrefetch = false
        return true
    }

    /// The image for `key` without touching its recency.
    public func peek(_ key: CacheKey) -> DecodedImage? {
        slotByKey[key].flatMap { entries[$0].image }
    }

    /// Stores `image`, evicting the least recently used entries to stay within
    /// `capacity`. An image larger than the whole cache is not stored.
    /// Also not stored: an image larger than the session's whole budget. With a
    /// session, the caller then calls `SessionMemoryBudget.trim` without the lock.
    /// `unseenPrefetch`: fetched before anyone asked (`takeUnseenPrefetch`).
    /// Returns where the image went, for the rows to note without looking the key up
    /// again: nil when it is too large to keep. The session's share, reported last,
    /// may evict it at once; the reference is then stale and answers nothing.
    @discardableResult
    mutating func insert(_ image: DecodedImage, for key: CacheKey, unseenPrefetch: Bool = false) -> CacheSlotRef? {
        defer { reportToSession() }
        removeUnreported(key)
        let cost = image.byteCount
        guard cost <= capacity, cost <= session?.membership.budget.limit ?? cost else { return nil }
        // Room first, so that the sweep never reaches the new entry: once every other
        // entry had its second chance, the new one would be the oldest unmarked.
        evictUnreported(downTo: capacity - cost - reservedBytes)
        lastGeneration += 1
        let entry = Entry(image: image, cost: cost, generation: lastGeneration, unseenPrefetch: unseenPrefetch)
        let slot = keys.insertAsNewest(key)
        if slot < entries.count { entries[slot] = entry } else { entries.append(entry) }
        session?.stamp(slot)
        slotByKey[key] = slot
        presence.insert(key)
        totalCost += cost
        return CacheSlotRef(slot: slot, generation: lastGeneration)
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

    /// Empties the cache; the reserved bytes stay as they were.
    /// As `evict(downTo:)`, passing over the images `spared` says to keep: each goes
    /// to the newest end once, and the sweep stops when only those are left.
    mutating func evict(downTo limit: Int, sparing spared: (CacheKey) -> Bool) {
        var passes = count
        while totalCost > limit, keys.oldest >= 0 {
            let slot = keys.oldest
            if spared(keys[slot]) {
                guard passes > 0 else { break }
                passes -= 1
                giveSecondChance(slot)
            } else if entries[slot].referenced {
                giveSecondChance(slot)
            } else {
                removeUnreported(keys[slot])
            }
        }
        reportToSession()
    }

    public mutating func removeAll() {
        // Generations go on from where they were: a reference taken before must not
        // match an entry stored after.
        let (lastGeneration, membership, reservedBytes) = (lastGeneration, session?.membership, reservedBytes)
        self = MemoryCache(capacity: capacity)
        self.lastGeneration = lastGeneration
        self.reservedBytes = reservedBytes
        if let membership { joinSession(membership) }
    }

    /// The bytes held beside the entries now (they count in the session's budget too).
    mutating func reserve(_ bytes: Int) {
        guard bytes != reservedBytes else { return }
        reservedBytes = bytes
        reportToSession()
    }

    /// The keys of images with an animation that left since the last call.
    mutating func takeRemovedAnimations() -> [CacheKey] {
        guard !removedAnimations.isEmpty else { return [] }
        defer { removedAnimations.removeAll() }
        return removedAnimations
    }

    private mutating func removeUnreported(_ key: CacheKey) {
        guard let slot = slotByKey.removeValue(forKey: key) else { return }
        presence.remove(key)
        if slot == keys.oldest { session?.evictedOldest(slot) }
        keys.remove(slot)
        totalCost -= entries[slot].cost
        if entries[slot].image?.animation != nil { removedAnimations.append(key) }
        entries[slot].image = nil
    }

    /// Evicts the oldest entries not used since they were stored or last given a
    /// second chance, until at most `limit` bytes remain.
    private mutating func evictUnreported(downTo limit: Int) {
        while totalCost > limit, keys.oldest >= 0 {
            if entries[keys.oldest].referenced {
                giveSecondChance(keys.oldest)
            } else {
                removeUnreported(keys[keys.oldest])
            }
        }
    }

    /// A used entry at the old end goes to the new end, unmarked. Its session tick
    /// stays: when it is next the oldest, it counts as used after every image this
    /// cache evicted meanwhile (`SessionShare.tick(of:)`), no later.
    private mutating func giveSecondChance(_ slot: Int) {
        entries[slot].referenced = false
        keys.touch(slot)
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
        // Images used since they were stored get their second chance first.
        while keys.oldest >= 0, entries[keys.oldest].referenced { giveSecondChance(keys.oldest) }
        guard let tick = oldestTick, tick <= bound, session?.membership.budget.isOver == true else {
            reportToSession()
            return .refused
        }
        remove(keys[keys.oldest])
        return .evicted
    }

    /// How old the least recently used image is, for comparison across loaders; nil
    /// when empty.
    private var oldestTick: UInt64? {
        guard let session, keys.oldest >= 0 else { return nil }
        return session.tick(of: keys.oldest)
    }

    private func reportToSession() {
        session?.membership.report(bytes: totalCost + reservedBytes, oldestTick: oldestTick)
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
