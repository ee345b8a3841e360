/// Animations that play in the list: the host asks for a row's frame n, or its frame
/// for time t, and gets it at once from the row's buffer, or "not yet" while a decode
/// thread makes it. It never waits: a host drawing at 60 Hz asks again next frame and
/// keeps showing what it has meanwhile. No event follows a "not yet": an event per
/// frame per animation would fill the queue with what the host's own frame clock
/// already asks for.
///
/// Each animation decodes in batches on one thread at a time, ahead of the frame
/// shown while the buffer has room, and only while its row is visible; a batch takes
/// no lock and leaves its frames in the player's mailbox, which the frame calls take
/// from. Its frames and canvas count in the memory cache's limit (and the session's
/// budget) with the images, and go first when memory is short: the stopped
/// animations' in full, then images by age, then the playing animations' frames
/// ahead.
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
        try front.withLock { f throws(LoaderError) -> FrameAnswer in
            try _frame(row: row, in: &f) { source throws(LoaderError) in
                guard index >= 0, index < (source?.frameCount ?? 1) else { throw .outOfRange }
                return index
            }.answer
        }
    }

    /// The row's frame `time` milliseconds into its animation, which frame that is, and
    /// when the next is due on the same clock (nil after the last play, or for a still).
    public func frame(row: Int, at time: UInt64) throws(LoaderError)
        -> (answer: FrameAnswer, index: Int, nextChange: UInt64?) {
        try front.withLock { f throws(LoaderError) in
            var nextChange: UInt64?
            let found = try _frame(row: row, in: &f) { source in
                guard let source else { return 0 }
                let frame = source.frame(at: time)
                nextChange = frame.nextChange
                return frame.index
            }
            return (found.answer, found.index, nextChange)
        }
    }

    private func _frame(row: Int, in s: inout LoaderFront,
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
        if s.visible?.contains(row) ?? true { s.animations.play(key) }
        if player.drain() { s.animationMemoryDidChange() }
        let answer = player.frame(index).map(FrameAnswer.frame) ?? .notYet
        _decodeAhead(player, in: &s)
        return (answer, index)
    }

    /// Starts the player's next batch unless one is under way, its row is off screen,
    /// or its buffer is full enough. (Front lock held.)
    func _decodeAhead(_ player: AnimationPlayer, in s: inout LoaderFront) {
        guard !s.isShuttingDown, player.framesWanted() != nil else { return }
        // Room first (which may squeeze the window), then the batch for the window left.
        s.animationMemoryDidChange(before: player)
        guard let batch = player.startBatch() else { return }
        // A decode thread taking a job now holds the queue's lock: the next frame
        // call tries again, rather than this one waiting.
        switch workers.submitIfFree(priority: Self.framePriority, { [weak self] _ in self?.decode(batch) }) {
        case true?: break
        case nil: player.undoStart(batch)
        // Refused only once shutdown began, which drops every player.
        case false?: batch.mailbox.push(.done(batch.composer, epoch: batch.epoch))
        }
        s.cache.reserve(s.animations.bytes)
    }

    /// On a decode thread, with no lock: the batch's frames into its mailbox, one at
    /// a time, until it is done or stopped; then the composer.
    private func decode(_ batch: AnimationPlayer.Batch) {
        // `batch.leftBehind` is released with the batch, here.
        let composer = batch.composer ?? AnimationComposer(batch.source)
        for index in batch.indices {
            guard batch.mailbox.stopGeneration.load(ordering: .relaxed) == batch.stopGeneration else { break }
            guard let image = try? composer.render(frame: index, options: configuration.decodeOptions,
                                                   limits: configuration.decodeLimits)
            else { continue }
            framesDecoded.add(1, ordering: .relaxed)
            batch.mailbox.push(.frame(index: index, image: image, epoch: batch.epoch))
        }
        batch.mailbox.push(.done(composer, epoch: batch.epoch))
    }
}

extension LoaderConfiguration {
    /// Whether a loader of this configuration keeps animations playable.
    var playsAnimations: Bool {
        animationBufferBytes > 0 && output == .pixels
    }

    /// On a worker, before the image is shared: attaches the file's frames to an
    /// animated first frame, when the loader plays animations.
    func attachAnimation(to image: DecodedImage, from bytes: [UInt8]) {
        guard playsAnimations, image.isAnimated, image.encoded == nil else { return }
        image.animation = AnimationSource.make(from: bytes, limits: decodeLimits)
    }
}
