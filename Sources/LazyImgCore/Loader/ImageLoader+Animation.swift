/// Animations that play in the list: the host asks for a row's frame n, or its frame
/// for time t, and gets it at once from the row's buffer, or "not yet" while a decode
/// thread makes it. It never waits: a host drawing at 60 Hz asks again next frame and
/// keeps showing what it has meanwhile. No event follows a "not yet": an event per
/// frame per animation would fill the queue with what the host's own frame clock
/// already asks for.
///
/// Each animation decodes on one thread at a time, one frame a job, ahead of the
/// frame shown while the buffer has room, and only while its row is visible. Its
/// frames and canvas count in the memory cache's limit (and the session's budget)
/// with the images, and go first when memory is short: the stopped animations' in
/// full, then images by age, then the playing animations' frames ahead.
extension ImageLoader {
    public enum FrameAnswer: Sendable {
        /// The frame, decoded.
        case frame(DecodedImage)
        /// Not decoded yet; being decoded unless the row is off screen.
        case notYet
        /// The row's image is not in memory: request it.
        case miss
    }

    /// Decode jobs for frames run after the visible rows' images (rank tier 0) and
    /// before the landing zone and prefetch.
    static let framePriority = 1 << 39

    /// Frame `index` of the row's animation. A still image is its own frame 0.
    public func frame(row: Int, index: Int) throws(LoaderError) -> FrameAnswer {
        try state.withLock { s throws(LoaderError) -> FrameAnswer in
            try _frame(row: row, in: &s) { source throws(LoaderError) in
                guard index >= 0, index < (source?.frameCount ?? 1) else { throw .outOfRange }
                return index
            }.answer
        }
    }

    /// The row's frame `time` milliseconds into its animation, which frame that is, and
    /// when the next is due on the same clock (nil after the last play, or for a still).
    public func frame(row: Int, at time: UInt64) throws(LoaderError)
        -> (answer: FrameAnswer, index: Int, nextChange: UInt64?) {
        try state.withLock { s throws(LoaderError) in
            var nextChange: UInt64?
            let found = try _frame(row: row, in: &s) { source in
                guard let source else { return 0 }
                let frame = source.frame(at: time)
                nextChange = frame.nextChange
                return frame.index
            }
            return (found.answer, found.index, nextChange)
        }
    }

    /// Whether this loader keeps animations playable.
    var playsAnimations: Bool {
        configuration.animationBufferBytes > 0 && configuration.output == .pixels
    }

    /// On a decode thread, before the image is shared: attaches the file's frames to
    /// an animated first frame, when this loader plays animations.
    func attachAnimation(to image: DecodedImage, from bytes: [UInt8]) {
        guard playsAnimations, image.isAnimated, image.encoded == nil else { return }
        image.animation = AnimationSource.make(from: bytes, limits: configuration.decodeLimits)
    }

    private func _frame(row: Int, in s: inout LoaderState,
                        pick: (AnimationSource?) throws(LoaderError) -> Int) throws(LoaderError)
        -> (answer: FrameAnswer, index: Int) {
        let key = try s.key(forRow: row)
        // Not in memory: what its file holds is not known.
        guard let first = try s.cachedImage(forRow: row) else { return (.miss, 0) }
        guard let source = first.animation else { return (.frame(first), try pick(nil)) }
        let index = try pick(source)
        let player = s.animations.player(for: key, first: first, source: source, row: row,
                                         bufferBytes: configuration.animationBufferBytes)
        player.row = row
        player.show(index)
        if s.window.visible?.contains(row) ?? true { s.animations.play(key) }
        let answer = player.frame(index).map(FrameAnswer.frame) ?? .notYet
        _decodeAhead(key, player, in: &s)
        return (answer, index)
    }

    /// Starts the player's next frame unless one is under way, its row is off screen,
    /// or its buffer is full. (State lock held.)
    private func _decodeAhead(_ key: CacheKey, _ player: AnimationPlayer, in s: inout LoaderState) {
        guard !player.isDecoding, !player.isStopped, !s.isShuttingDown, player.nextToDecode() != nil else { return }
        player.isDecoding = true
        let submitted = decodePool.submit(priority: Self.framePriority) { [weak self] _ in
            self?.decodeNextFrame(key, player)
        }
        if !submitted { player.isDecoding = false }
    }

    /// On a decode thread: one frame into the player's buffer, then the next job.
    private func decodeNextFrame(_ key: CacheKey, _ player: AnimationPlayer) {
        let work = state.withLock { s -> (composer: AnimationComposer?, index: Int)? in
            guard s.animations.contains(player, for: key), !player.isStopped, !s.isShuttingDown,
                  let index = player.nextToDecode()
            else {
                player.isDecoding = false
                return nil
            }
            return (player.lendComposer(), index)
        }
        guard let work else { return }
        let composer = work.composer ?? AnimationComposer(player.source)
        let image = try? composer.render(frame: work.index, options: configuration.decodeOptions,
                                         limits: configuration.decodeLimits)
        state.withLock { s in
            if player.jobDidFinish(composer, frame: image, at: work.index) { s.stats.framesDecoded += 1 }
            guard s.animations.contains(player, for: key) else { return }
            _animationMemoryDidChange(in: &s)
            _decodeAhead(key, player, in: &s)
        }
        trimSessionMemory()
    }

    // MARK: Memory

    /// After the players' memory grew or shrank: makes room within the cache's limit,
    /// stopped animations first, then images by age (not the first frames of the
    /// animations playing: they carry the files), then the playing animations' frames
    /// past the one shown and the next; and tells the cache (and the session) what the
    /// players hold. Squeezed windows widen again once full buffers fit.
    func _animationMemoryDidChange(in s: inout LoaderState) {
        let capacity = s.cache.capacity
        func over(_ s: LoaderState) -> Int { s.cache.totalCost + s.animations.bytes - capacity }
        if s.animations.isSqueezed,
           s.animations.bytesPastTwoFrames <= s.animations.stoppedBytes - over(s) {
            s.animations.squeeze(false)
        }
        if over(s) > 0 { s.animations.dropStopped(freeing: over(s)) }
        if over(s) > 0 {
            let playing = s.animations.playing
            s.cache.evict(downTo: max(0, capacity - s.animations.bytes), sparing: playing.contains)
            _dropRemovedAnimations(in: &s)
        }
        if over(s) > 0 { s.animations.squeeze(true) }
        s.cache.reserve(s.animations.bytes)
    }

    /// Caches a job's image, stopped animations' memory going first to make room.
    func _insertImage(_ image: DecodedImage, for key: CacheKey, in s: inout LoaderState) {
        if !s.animations.isEmpty {
            let over = s.cache.totalCost + s.animations.bytes + image.byteCount - s.cache.capacity
            if over > 0 { s.animations.dropStopped(freeing: over) }
            s.cache.reserve(s.animations.bytes)
        }
        s.cache.insert(image, for: key)
        _dropRemovedAnimations(in: &s)
    }

    /// Players whose first frame left the cache go with it. (State lock held.)
    func _dropRemovedAnimations(in s: inout LoaderState) {
        let removed = s.cache.takeRemovedAnimations()
        guard !removed.isEmpty else { return }
        for key in removed { s.animations.remove(key) }
        s.cache.reserve(s.animations.bytes)
    }

    /// A view change: animations whose rows left the visible range stop decoding.
    func _stopAnimationsThatLeft(in s: inout LoaderState) {
        guard !s.animations.playing.isEmpty, let visible = s.window.visible else { return }
        s.animations.stop { !visible.contains($0) }
    }

    /// `trimMemory`'s part: stopped animations go whole, playing ones keep the frame
    /// they show; `.complete` drops every player.
    func _trimAnimations(_ level: TrimLevel, in s: inout LoaderState) {
        switch level {
        case .moderate:
            s.animations.dropStopped()
            s.animations.dropFramesAhead()
        case .complete:
            s.animations.removeAll()
        }
        s.cache.reserve(s.animations.bytes)
    }

    /// For the session's budget: a stopped animation's memory, else playing ones'
    /// frames ahead, before any image. Nil when they hold nothing to give.
    func _evictAnimationsForSession(in s: inout LoaderState) -> SessionMemoryBudget.Eviction? {
        let before = s.animations.bytes
        guard before > 0 else { return nil }
        if s.animations.dropStopped(freeing: 1) == 0 { s.animations.dropFramesAhead() }
        s.cache.reserve(s.animations.bytes)
        return s.animations.bytes < before ? .evicted : nil
    }
}
