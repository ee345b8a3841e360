/// The animations a loader plays, by cache key, and what they hold together: the
/// bytes the memory cache counts beside its images (`MemoryCache.reserve`).
///
/// A player exists while its first frame is in the memory cache (the image carries
/// the file's bytes); when that image leaves, the player goes with it. The players
/// that may decode are kept apart, so a view change looks at those, not at every
/// animation ever shown. Under the loader's state lock, like the cache.
struct AnimationPlayers {
    private(set) var players: [CacheKey: AnimationPlayer] = [:]
    /// Keys of the players not stopped.
    private(set) var playing: Set<CacheKey> = []
    /// Memory is short: playing animations buffer the squeezed window each.
    private(set) var isSqueezed = false

    var isEmpty: Bool { players.isEmpty }

    /// The frames and canvases every player holds.
    var bytes: Int { players.values.reduce(0) { $0 + $1.bytes } }

    /// What the stopped ones hold: the first memory to go.
    var stoppedBytes: Int { players.reduce(0) { $0 + (playing.contains($1.key) ? 0 : $1.value.bytes) } }

    /// The player for `key`, made for `first` when there is none or the cache now holds
    /// a newer first frame.
    mutating func player(for key: CacheKey, first: DecodedImage, source: AnimationSource, row: Int,
                         bufferBytes: Int) -> AnimationPlayer {
        if let player = players[key], player.first === first { return player }
        let player = AnimationPlayer(first: first, source: source, row: row, bufferBytes: bufferBytes)
        if isSqueezed { player.squeeze(true) }
        players[key]?.dropMemory()
        players[key] = player
        return player
    }

    func contains(_ player: AnimationPlayer, for key: CacheKey) -> Bool {
        players[key] === player
    }

    mutating func play(_ key: CacheKey) {
        guard let player = players[key] else { return }
        player.play()
        playing.insert(key)
    }

    /// Stops every playing animation whose row `leaves` says has left.
    mutating func stop(where leaves: (Int) -> Bool) {
        for key in playing {
            guard let player = players[key], leaves(player.row) else { continue }
            player.drain()
            player.stop()
            playing.remove(key)
        }
    }

    /// The first frame left the cache: the animation goes.
    mutating func remove(_ key: CacheKey) {
        players.removeValue(forKey: key)?.dropMemory()
        playing.remove(key)
    }

    mutating func removeAll() {
        for player in players.values { player.dropMemory() }
        players.removeAll()
        playing.removeAll()
    }

    /// Drops the memory of stopped players until `needed` bytes are freed (all of it
    /// by default); returns the bytes freed.
    @discardableResult
    mutating func dropStopped(freeing needed: Int = .max) -> Int {
        var freed = 0
        for (key, player) in players where freed < needed && !playing.contains(key) {
            // A batch stopped since: its frames and composer wait in the mailbox.
            player.drain()
            let before = player.bytes
            guard before > 0 else { continue }
            // What a batch still running holds counts until it ends.
            player.dropMemory()
            freed += before - player.bytes
        }
        return freed
    }

    /// Takes what every batch left so far (before memory decisions about them).
    func drainAll() {
        for player in players.values { player.drain() }
    }

    /// Keeps only the frame each playing animation shows.
    mutating func dropFramesAhead() {
        for key in playing { players[key]?.dropFramesAhead() }
    }

    func releaseLeftBehind() {
        for player in players.values { player.releaseLeftBehind() }
    }

    /// Squeezed windows for every animation, or full buffers again.
    mutating func squeeze(_ squeezed: Bool) {
        guard squeezed != isSqueezed else { return }
        isSqueezed = squeezed
        for player in players.values { player.squeeze(squeezed) }
    }

    /// What the playing animations' full buffers would add to their squeezed windows.
    var bytesPastSqueezedWindow: Int {
        // Saturating: the buffer's size is the host's to choose.
        playing.reduce(0) { $0.addingSaturating(players[$1]?.bytesPastSqueezedWindow ?? 0) }
    }
}
