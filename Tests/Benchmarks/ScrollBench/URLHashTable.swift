import Glibc

/// The hit-cost floor without a lock: a fixed open-addressing table from URL bytes to
/// an index, written as it would be in C (FNV-1a over the bytes, linear probing,
/// memcmp to confirm), over C strings the caller keeps alive.
struct URLHashTable {
    private let keys: [UnsafeMutablePointer<CChar>?]
    private let lengths: [Int]
    /// Per slot: key index + 1, 0 = empty.
    private var slots: [Int]
    private var hashes: [UInt64]
    private let mask: Int

    init(keys: [UnsafeMutablePointer<CChar>?]) {
        self.keys = keys
        lengths = keys.map { $0.map { strlen($0) } ?? 0 }
        var capacity = 16
        while capacity < keys.count * 2 { capacity *= 2 }
        mask = capacity - 1
        slots = Array(repeating: 0, count: capacity)
        hashes = Array(repeating: 0, count: capacity)
        for (index, key) in keys.enumerated() {
            guard let key else { continue }
            let hash = Self.fnv1a(key, length: lengths[index])
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = index + 1
            hashes[slot] = hash
        }
    }

    /// The index of `key`, or -1.
    func find(_ key: UnsafePointer<CChar>, length: Int) -> Int {
        let hash = Self.fnv1a(key, length: length)
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] != 0 {
            let index = slots[slot] - 1
            if hashes[slot] == hash, lengths[index] == length, let stored = keys[index], memcmp(stored, key, length) == 0 {
                return index
            }
            slot = (slot + 1) & mask
        }
        return -1
    }

    private static func fnv1a(_ bytes: UnsafePointer<CChar>, length: Int) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for i in 0..<length {
            hash = (hash ^ UInt64(UInt8(bitPattern: bytes[i]))) &* 0x100_0000_01b3
        }
        return hash
    }
}
