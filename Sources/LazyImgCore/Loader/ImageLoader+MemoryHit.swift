extension ImageLoader {
    /// `request(row:)`'s answer when the image is in memory, else nil: then call
    /// `request(row:)`, which also says why (a miss, a row out of range, shutdown).
    ///
    /// The path the host takes for every visible row, so it is kept apart from the
    /// scheduling one: it cannot fail and builds no `RequestResult`, and the C call
    /// goes through it with no throwing closures around it. A miss takes the lock a
    /// second time in `request(row:)`, a small part of what a miss costs.
    public func requestFromMemory(row: Int) -> DecodedImage? {
        state.withLock { s in
            guard let image = try? s.cachedImage(forRow: row) else { return nil }
            _countMemoryHit(row: row, in: &s)
            return image
        }
    }

    /// Counts a request answered from memory, and a prefetched image seen.
    @inline(__always)
    func _countMemoryHit(row: Int, in s: inout LoaderState) {
        s.stats.requests += 1
        s.stats.memoryHits += 1
        if s.prefetch.holdsUnseen, let key = s.rows[row], s.prefetch.shown(key) {
            s.stats.prefetchHits += 1
            // The waste budget may have room again.
            _pump(in: &s)
        }
    }
}
