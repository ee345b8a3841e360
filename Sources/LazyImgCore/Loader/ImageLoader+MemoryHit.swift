extension ImageLoader {
    /// `request(row:)`'s answer unless it is an error, else nil: then call
    /// `request(row:)`, which throws it (a row out of range, no URL, shutdown...).
    ///
    /// The path the host takes for every visible row: it cannot fail, and the C
    /// call goes through it with no throwing closures around it. A miss opens its
    /// ticket in the same hold of the front lock as the lookup; taking the lock a
    /// second time and looking again cost a fifth of a miss (callgrind).
    public func requestUnlessFailing(row: Int) -> RequestResult? {
        var shown: CacheKey?
        let result = front.withLock { f -> RequestResult? in
            do {
                if let image = try f.cachedImage(forRow: row) {
                    shown = f.countMemoryHit(row: row)
                    return .image(image)
                }
                return try missed(row: row, in: &f)
            } catch {
                return nil
            }
        }
        if let result { answered(result, shown: shown) }
        return result
    }
}
