/// The animations' part of the front: their frames and canvases count in the
/// memory cache's limit with the images, and go first when memory is short (see
/// `ImageLoader+Animation`). The host's frame calls, the scheduler's inserts and
/// the session's evictions all come here under the front lock.
extension LoaderFront {
    /// The keys of the rows on screen (none known before the scheduler saw which),
    /// and of the animations playing.
    var keysOnScreen: Set<CacheKey> {
        var keys = animations.playing
        for row in (visible ?? 0..<0).clamped(to: 0..<rows.count) {
            if let key = rows[row] { keys.insert(key) }
        }
        return keys
    }

    /// After the players' memory grew or shrank, or before `coming`'s batch or an
    /// image of `incoming` bytes: makes room within the cache's limit. The stopped
    /// animations' memory goes first, then the frames left behind, then images by
    /// age, never those of the rows on screen (the first frames of the animations
    /// playing carry their files), and last the playing animations' frames past the
    /// squeezed window. Tells the cache (and the session) what the players hold.
    /// Squeezed windows widen again once full buffers fit.
    mutating func animationMemoryDidChange(before coming: AnimationPlayer? = nil, adding incoming: Int = 0) {
        let capacity = cache.capacity
        // The batch is what the window wants now: a squeeze makes it smaller.
        func batch() -> Int { coming.flatMap { p in p.framesWanted().map { p.batchBytes(frames: $0.count) } } ?? 0 }
        func over(_ s: LoaderFront) -> Int { s.cache.totalCost + s.animations.bytes + batch() + incoming - capacity }
        if animations.isSqueezed,
           animations.bytesPastSqueezedWindow <= animations.stoppedBytes - over(self) {
            animations.squeeze(false)
        }
        if over(self) > 0 { animations.dropStopped(freeing: over(self)) }
        if over(self) > 0 { animations.releaseLeftBehind() }
        if over(self) > 0 {
            let shown = keysOnScreen
            cache.evict(downTo: max(0, capacity - animations.bytes - batch() - incoming), sparing: shown.contains)
            dropRemovedAnimations()
        }
        if over(self) > 0 { animations.squeeze(true) }
        cache.reserve(animations.bytes)
    }

    /// Caches a job's image, the animations' spare memory going first to make room.
    /// `unseenPrefetch`: fetched unasked (`MemoryCache.insert`).
    mutating func insertImage(_ image: DecodedImage, for key: CacheKey, unseenPrefetch: Bool) {
        if !animations.isEmpty { animationMemoryDidChange(adding: image.byteCount) }
        if let slot = cache.insert(image, for: key, unseenPrefetch: unseenPrefetch) { rows.noteCached(key, at: slot) }
        imagesCached &+= 1
        dropRemovedAnimations()
    }

    /// Players whose first frame left the cache go with it.
    mutating func dropRemovedAnimations() {
        let removed = cache.takeRemovedAnimations()
        guard !removed.isEmpty else { return }
        for key in removed { animations.remove(key) }
        cache.reserve(animations.bytes)
    }

    /// The scheduler's view changed to `rows` visible: animations whose rows left
    /// stop decoding.
    mutating func visibleRowsChanged(_ rows: Range<Int>?) {
        visible = rows
        guard !animations.playing.isEmpty, let rows else { return }
        animations.stop { !rows.contains($0) }
    }

    /// `trimMemory`'s part: stopped animations go whole, playing ones keep the frame
    /// they show; `.complete` drops every player.
    mutating func trimAnimations(_ level: ImageLoader.TrimLevel) {
        animations.drainAll()
        switch level {
        case .moderate:
            animations.dropStopped()
            animations.dropFramesAhead()
            animations.releaseLeftBehind()
        case .complete:
            animations.removeAll()
        }
        cache.reserve(animations.bytes)
    }

    /// For the session's budget: a stopped animation's memory, else playing ones'
    /// frames ahead, before any image. Nil when they hold nothing to give.
    mutating func evictAnimationsForSession() -> SessionMemoryBudget.Eviction? {
        animations.drainAll()
        let before = animations.bytes
        guard before > 0 else { return nil }
        if animations.dropStopped(freeing: 1) == 0 {
            animations.releaseLeftBehind()
            animations.dropFramesAhead()
        }
        cache.reserve(animations.bytes)
        return animations.bytes < before ? .evicted : nil
    }
}
