/// The list's rows: one cache key per row (nil: no image), made once when the rows
/// arrive, and beside each the cache slot where the row's image was last found.
///
/// Keys and slot references live and change together here, so a reference can only
/// ever describe the key of its own row: replacing the list starts with no references.
struct RowKeys {
    private var keys: [CacheKey?]
    private var slots: [CacheSlotRef]

    init(_ keys: [CacheKey?] = []) {
        self.keys = keys
        slots = Array(repeating: .none, count: keys.count)
    }

    var count: Int { keys.count }

    subscript(row: Int) -> CacheKey? { keys[row] }

    mutating func append(contentsOf more: [CacheKey?]) {
        keys.append(contentsOf: more)
        slots.append(contentsOf: repeatElement(.none, count: more.count))
    }

    /// `CacheKey.isLoadable` of `row`'s key, read in place (nil: no image). `row`
    /// must be in range.
    func isLoadable(row: Int, allowingFiles: Bool) -> Bool? {
        keys.withUnsafeBufferPointer { keys in keys[row]?.isLoadable(allowingFiles: allowingFiles) }
    }

    /// The slot `row`'s image was last found in; perhaps stale (`MemoryCache` checks).
    /// `row` must be in range.
    func rememberedSlot(ofRow row: Int) -> CacheSlotRef {
        slots.withUnsafeBufferPointer { $0[row] }
    }

    /// Looks `row`'s key up in `cache` by hash and remembers where it was found.
    /// Returns nil when the image is not cached; throws `.noImage` for a row without
    /// an image. `row` must be in range.
    mutating func findSlot(ofRow row: Int, in cache: MemoryCache) throws(LoaderError) -> CacheSlotRef? {
        // Read in place: through the array's getter the key was copied out, retaining
        // and releasing its URL.
        let found: CacheSlotRef?? = keys.withUnsafeBufferPointer { keys in
            guard let key = keys[row] else { return nil }
            return .some(cache.slotRef(for: key))
        }
        guard let found else { throw .noImage }
        if let found { slots[row] = found }
        return found
    }
}
