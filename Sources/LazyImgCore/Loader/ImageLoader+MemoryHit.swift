extension ImageLoader {
    /// `request(row:)`'s answer unless it is an error: the image when it is in
    /// memory; else nil with the miss's `ticket` set (and `deferred`), or with
    /// `ticket` left 0 for an error: then call `request(row:)`, which throws it (a
    /// row out of range, no URL, shutdown...). A miss sets `placeholder` when the
    /// row may have one (`placeholder(forRow:)`); until a host gives placeholders,
    /// none has.
    ///
    /// The path the host takes for every visible row: it cannot fail, and the C
    /// call goes through it with no throwing closures around it. A miss opens its
    /// ticket in the same hold of the front lock as the lookup (looking again under
    /// a second hold was a sixth of a miss, callgrind); a hit returns the bare image,
    /// which a `RequestResult` around it cost 90 instructions of retains and copies.
    public func requestUnlessFailing(row: Int, ticket: inout UInt64, deferred: inout Bool,
                                     placeholder: inout Bool) -> DecodedImage? {
        var shown: CacheKey?
        var missed: RequestResult?
        let image = front.withLock { f -> DecodedImage? in
            do {
                if let image = try f.cachedImage(forRow: row) {
                    shown = f.countMemoryHit(row: row)
                    return image
                }
                missed = try self.missed(row: row, in: &f)
                placeholder = f.placeholdersInUse
            } catch {}
            return nil
        }
        if let shown { loop.post(host: .prefetchShown(shown)) }
        switch missed {
        case .pending(let number)?: ticket = number
        case .deferred(let number)?:
            ticket = number
            deferred = true
        case .image?, nil: return image
        }
        wake.wake(urgent: false)
        return nil
    }
}
