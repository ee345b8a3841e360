/// Which keys a `MemoryCache` may hold, so that most misses are told by one
/// cache line instead of a dictionary probe: a counting filter over the keys'
/// precomputed hashes, two counters per key in one 64-byte block.
///
/// Most keys looked up are not cached: each row of a list or page as it arrives
/// (`RowKeys`, on the host's thread), and a request the scheduler checks. A probe
/// of `slotByKey` walks the table's bitmap and, for each occupied bucket on the
/// way, that key's hash: several lines. "No" here is certain; "maybe" falls back
/// to the dictionary. A counter that reaches 255 stays there (it may then say
/// "maybe" for ever, never "no" wrongly). A request itself no longer looks keys
/// up: its row knows its image's slot.
struct CachePresence {
    /// 256 blocks of 64 counters (16 KiB): a wrong "maybe" for about one miss in
    /// 80 at 1,000 cached images, one in 4 at 6,000.
    private static let blockBits = 6
    private static let blockSize = 1 << blockBits
    private static let blocks = 1 << 8
    private var counters = [UInt8](repeating: 0, count: blocks * blockSize)

    func mayContain(_ key: CacheKey) -> Bool {
        let (a, b) = Self.positions(key.presenceHash)
        return counters.withUnsafeBufferPointer { $0[a] != 0 && $0[b] != 0 }
    }

    mutating func insert(_ key: CacheKey) {
        let (a, b) = Self.positions(key.presenceHash)
        counters.withUnsafeMutableBufferPointer { c in
            if c[a] < .max { c[a] += 1 }
            if c[b] < .max { c[b] += 1 }
        }
    }

    /// `key` must have been inserted and not removed since.
    mutating func remove(_ key: CacheKey) {
        let (a, b) = Self.positions(key.presenceHash)
        counters.withUnsafeMutableBufferPointer { c in
            if c[a] < .max { c[a] -= 1 }
            if c[b] < .max { c[b] -= 1 }
        }
    }

    /// The block from the hash's low bits, the two counters in it from higher
    /// ones (distinct, so a key never counts one counter twice).
    private static func positions(_ hash: Int) -> (Int, Int) {
        let h = UInt(bitPattern: hash)
        let block = Int(h & UInt(blocks - 1)) * blockSize
        let first = Int(h >> 20) & (blockSize - 1)
        // 1 ... blockSize - 1 counters on, around the block: never `first` again.
        let second = (first + 1 + Int((h >> 26) % UInt(blockSize - 1))) & (blockSize - 1)
        return (block + first, block + second)
    }
}
