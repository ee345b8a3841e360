extension ImageLoader {
    /// `request(row:)`'s answer when the image is in memory, else nil: then call
    /// `request(row:)`, which also says why (a miss, a row out of range, shutdown).
    ///
    /// The path the host takes for every visible row, so it is kept apart from the
    /// scheduling one: it cannot fail and builds no `RequestResult`, and the C call
    /// goes through it with no throwing closures around it. A miss takes the lock a
    /// second time in `request(row:)`, a small part of what a miss costs.
    public func requestFromMemory(row: Int) -> DecodedImage? {
        var shown: CacheKey?
        let image = front.withLock { f -> DecodedImage? in
            guard let image = try? f.cachedImage(forRow: row) else { return nil }
            shown = f.countMemoryHit(row: row)
            return image
        }
        // A prefetched image seen: the scheduler counts it, and its waste budget may
        // have room again.
        if let shown { loop.post(host: .prefetchShown(shown)) }
        return image
    }
}
