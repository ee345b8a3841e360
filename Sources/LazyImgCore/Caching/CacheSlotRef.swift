/// Where a key's image was found in a `MemoryCache`, kept per row so that a memory hit
/// reads one array element instead of hashing the key and comparing its URL.
///
/// A slot is reused by other keys once its entry is evicted, so the reference also
/// carries the generation the entry got when it was stored: every insert takes a new
/// one (64 bits: it never wraps), and a reference whose generation the slot no longer
/// holds is stale and answers nothing.
struct CacheSlotRef: Equatable {
    var slot: Int
    var generation: UInt64

    /// Refers to no entry: generations start at 1.
    static let none = CacheSlotRef(slot: 0, generation: 0)
}
