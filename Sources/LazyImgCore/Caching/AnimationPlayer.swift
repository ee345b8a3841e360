/// One animation being played: the frames decoded ahead of the one shown, and the
/// composer that makes them.
///
/// The buffer is a window of `capacity` frames starting at the frame shown and
/// wrapping past the last one; frames behind it are dropped as it moves. When every
/// frame fits, none is dropped and, once all are decoded, playing costs nothing more.
/// Frame 0 is the first-frame image itself (in the memory cache already), never
/// stored twice.
///
/// A class so the loader's table and the decode job it lends its composer to refer to
/// the same one. @unchecked Sendable: every property is read and written with the
/// loader's state lock held; the composer, once lent, is touched only by the job.
final class AnimationPlayer: @unchecked Sendable {
    let first: DecodedImage
    let source: AnimationSource
    /// The bytes of one frame at the box size.
    let frameBytes: Int
    /// The frames the buffer holds at most: `bufferBytes` worth, at least two (the
    /// one shown and the next), at most all of them.
    let capacity: Int
    /// The window now: `capacity`, or two while memory is short (`AnimationPlayers`).
    var window: Int
    private(set) var frames: [Int: DecodedImage] = [:]
    /// The frame shown last.
    private(set) var playhead = 0
    /// How many frames from the playhead on are known to be decoded (frame 0 always
    /// is): the search for the next one to decode starts there, so a frame call on
    /// a full buffer of 500 frames does not look at all of them.
    private var decodedAhead = 0
    /// The row that asked last: its leaving the visible range stops the decoding.
    var row: Int
    /// A decode job is queued or running for it.
    var isDecoding = false
    /// Its row left the visible range: no decoding until it is asked again.
    var isStopped = false
    private var composer: AnimationComposer?
    /// The composer's bytes, counted from when a job made it until it is dropped (also
    /// while a job has it).
    private(set) var composerBytes = 0
    /// The memory was dropped while a job had the composer: what the job brings back
    /// is discarded.
    private var dropsLent = false

    init(first: DecodedImage, source: AnimationSource, row: Int, bufferBytes: Int) {
        self.first = first
        self.source = source
        self.row = row
        // Every frame has the first frame's size and layout.
        frameBytes = max(1, first.stride * first.height)
        capacity = min(source.frameCount, max(2, bufferBytes / frameBytes))
        window = capacity
    }

    /// Frames, canvas and copies it holds now.
    var bytes: Int { frames.count * frameBytes + composerBytes }

    var keepsEveryFrame: Bool { window >= source.frameCount }

    /// Frame `index` if it is decoded.
    func frame(_ index: Int) -> DecodedImage? {
        index == 0 ? first : frames[index]
    }

    /// `index` is shown now: frames behind the window go.
    func show(_ index: Int) {
        guard index != playhead else { return }
        let count = source.frameCount
        // Moving on by `step` frames keeps what was known of the frames after.
        let step = (index - playhead + count) % count
        decodedAhead = max(0, decodedAhead - step)
        let left = playhead
        playhead = index
        guard !keepsEveryFrame else { return }
        // A step within the window drops the frames it passed; a jump, any.
        if step < window {
            for passed in 0..<step { frames[(left + passed) % count] = nil }
        } else {
            for stale in frames.keys where !isInWindow(stale) { frames[stale] = nil }
        }
    }

    /// The first frame of the window not decoded yet, in playing order.
    func nextToDecode() -> Int? {
        let count = source.frameCount
        while decodedAhead < min(window, count) {
            let index = (playhead + decodedAhead) % count
            if index != 0 && frames[index] == nil { return index }
            decodedAhead += 1
        }
        return nil
    }

    /// For a decode job: the composer (nil when there is none yet: the job makes one).
    func lendComposer() -> AnimationComposer? {
        dropsLent = false
        defer { composer = nil }
        return composer
    }

    /// The job is done: its composer comes back, and the frame it made is kept if the
    /// window still wants it (returns whether it was). Both are discarded when the
    /// memory was dropped meanwhile.
    func jobDidFinish(_ returned: AnimationComposer, frame image: DecodedImage?, at index: Int) -> Bool {
        isDecoding = false
        defer { dropsLent = false }
        guard !dropsLent else { return false }
        composer = returned
        composerBytes = returned.byteCount
        guard let image, isInWindow(index) else { return false }
        frames[index] = image
        return true
    }

    /// Drops every decoded frame and the composer (a trim, or memory needed
    /// elsewhere). Playing again starts from the first frame's canvas.
    func dropMemory() {
        frames.removeAll()
        decodedAhead = 0
        composer = nil
        composerBytes = 0
        if isDecoding { dropsLent = true }
    }

    /// Keeps only the frame shown.
    func dropFramesAhead() {
        for index in frames.keys where index != playhead { frames[index] = nil }
        decodedAhead = 0
    }

    /// The window of two frames (the one shown and the next) while memory is short,
    /// or the whole buffer again; frames past it go.
    func squeeze(_ squeezed: Bool) {
        window = squeezed ? min(2, capacity) : capacity
        for index in frames.keys where !isInWindow(index) { frames[index] = nil }
        decodedAhead = 0
    }

    /// What the frames past a window of two would hold at `capacity`.
    var bytesPastTwoFrames: Int { max(0, capacity - 2) * frameBytes }

    private func isInWindow(_ index: Int) -> Bool {
        let count = source.frameCount
        return (index - playhead + count) % count < window
    }
}
