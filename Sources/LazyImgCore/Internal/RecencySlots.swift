/// Elements kept in reusable array slots and linked from the least to the most
/// recently used, for the LRU caches: using an entry and finding the oldest are
/// constant time, and a hit moves no memory and allocates nothing.
struct RecencySlots<Element> {
    private var elements: [Element?] = []
    private var freeSlots: [Int] = []
    private var newer: [Int] = []  // toward `newest`; -1 at the end
    private var older: [Int] = []  // toward `oldest`; -1 at the end
    private var newest = -1
    /// The least recently used slot; -1 when empty.
    private(set) var oldest = -1

    subscript(slot: Int) -> Element {
        // Only slots handed out by `insertAsNewest` and not yet removed are asked for.
        elements[slot]!
    }

    /// Stores `element` as the most recently used; returns its slot.
    mutating func insertAsNewest(_ element: Element) -> Int {
        let slot: Int
        if let reused = freeSlots.popLast() {
            slot = reused
            elements[slot] = element
        } else {
            slot = elements.count
            elements.append(element)
            newer.append(-1)
            older.append(-1)
        }
        link(slot)
        return slot
    }

    /// Marks `slot` as the most recently used.
    mutating func touch(_ slot: Int) {
        unlink(slot)
        link(slot)
    }

    /// Frees `slot`, dropping its element.
    mutating func remove(_ slot: Int) {
        unlink(slot)
        elements[slot] = nil
        freeSlots.append(slot)
    }

    private mutating func unlink(_ slot: Int) {
        let (toNewer, toOlder) = (newer[slot], older[slot])
        if toNewer >= 0 { older[toNewer] = toOlder } else { newest = toOlder }
        if toOlder >= 0 { newer[toOlder] = toNewer } else { oldest = toNewer }
        newer[slot] = -1
        older[slot] = -1
    }

    private mutating func link(_ slot: Int) {
        older[slot] = newest
        newer[slot] = -1
        if newest >= 0 { newer[newest] = slot }
        newest = slot
        if oldest < 0 { oldest = slot }
    }
}
