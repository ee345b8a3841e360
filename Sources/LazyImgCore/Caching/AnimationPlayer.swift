/// One animation being played: the frames decoded ahead of the one shown, and the
/// composer that makes them.
///
/// The buffer is a window of `capacity` frames starting at the frame shown and
/// wrapping past the last one; frames behind it are dropped as it moves. When every
/// frame fits, none is dropped and, once all are decoded, playing costs nothing more.
/// Frame 0 is the first-frame image itself (in the memory cache already), never
/// stored twice.
///
/// Frames are decoded in batches: the frames of the window not decoded yet, once
/// half the window ahead has been shown (at once when the frame due or the next is
/// missing), by one job on a decode thread that holds the composer meanwhile and
/// leaves what it makes in `mailbox`; the host's frame calls take it from there
/// (`drain`). The job takes no lock (see `FrameMailbox`).
///
/// @unchecked Sendable: every property but `mailbox` is read and written with the
/// loader's state lock held; a composer, once lent, is touched only by its job.
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
    /// A batch is queued or being decoded.
    private(set) var isDecoding = false
    /// Its row left the visible range: no decoding until it is asked again.
    private(set) var isStopped = false
    let mailbox = FrameMailbox()
    private var composer: AnimationComposer?
    /// The composer's bytes, counted from when a job made it until it is dropped (also
    /// while a job has it).
    private(set) var composerBytes = 0
    /// What the batch under way will make and has not handed over yet, counted from
    /// the start: its frames, and the composer when it has to make one.
    private var batchHolds = 0
    /// Bumped when the memory is dropped: what a batch begun before brings back is
    /// discarded.
    private var memoryEpoch = 0
    /// Frames the window left behind, for the next batch to release on its decode
    /// thread: a frame's pixels were allocated there, and freeing them on the host's
    /// thread would take that thread's malloc arena lock, which a decode thread kept
    /// off the CPU may hold. Counted until then.
    private var leftBehind: [DecodedImage] = []

    /// What a decode job is to do.
    struct Batch: @unchecked Sendable {
        // @unchecked: the composer goes to the job and comes back through the mailbox.
        let source: AnimationSource
        let indices: [Int]
        let composer: AnimationComposer?
        let epoch: Int
        let stopGeneration: UInt64
        let mailbox: FrameMailbox
        /// Released on the decode thread (`leftBehind`).
        let leftBehind: [DecodedImage]
    }

    init(first: DecodedImage, source: AnimationSource, row: Int, bufferBytes: Int) {
        self.first = first
        self.source = source
        self.row = row
        // Every frame has the first frame's size and layout.
        frameBytes = max(1, first.stride * first.height)
        capacity = min(source.frameCount, max(2, bufferBytes / frameBytes))
        window = capacity
    }

    /// Frames, canvas and copies it holds now, and what its batch will make.
    var bytes: Int { (frames.count + leftBehind.count) * frameBytes + composerBytes + batchHolds }

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
            for passed in 0..<step { leave(frames.removeValue(forKey: (left + passed) % count)) }
        } else {
            for stale in frames.keys where !isInWindow(stale) { leave(frames.removeValue(forKey: stale)) }
        }
    }

    private func leave(_ frame: DecodedImage?) {
        if let frame { leftBehind.append(frame) }
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

    /// The frames the next batch would decode, when the window wants one and none is
    /// under way: every frame of the window not decoded yet, in playing order; nil
    /// otherwise. Once half of a large window ahead is decoded, it waits until that
    /// is shown, unless what is missing is due now or next.
    func framesWanted() -> [Int]? {
        guard !isDecoding, !isStopped, nextToDecode() != nil,
              decodedAhead <= 1 || decodedAhead < window / 2 || window <= 2 * Self.squeezedWindow
        else { return nil }
        let count = source.frameCount
        return (decodedAhead..<min(window, count)).map { (playhead + $0) % count }
            .filter { $0 != 0 && frames[$0] == nil }
    }

    /// What a batch of `frames` frames holds while it runs.
    func batchBytes(frames count: Int) -> Int {
        count * frameBytes + (composer == nil ? AnimationComposer.persistentBytes(of: source) : 0)
    }

    /// Starts the batch `framesWanted` says, its bytes counted from now.
    func startBatch() -> Batch? {
        guard let indices = framesWanted() else { return nil }
        isDecoding = true
        batchHolds = batchBytes(frames: indices.count)
        let lent = composer
        composer = nil
        defer { leftBehind.removeAll() }
        return Batch(source: source, indices: indices, composer: lent, epoch: memoryEpoch,
                     stopGeneration: mailbox.stopGeneration.load(ordering: .relaxed), mailbox: mailbox,
                     leftBehind: leftBehind)
    }

    /// The batch could not be queued now: as if it had not started.
    func undoStart(_ batch: Batch) {
        isDecoding = false
        batchHolds = 0
        composer = batch.composer
        leftBehind = batch.leftBehind
    }

    /// Takes what the batch left in the mailbox: frames the window still wants, and
    /// the composer once the batch is done. Returns whether anything came.
    @discardableResult
    func drain() -> Bool {
        let items = mailbox.takeAll()
        for item in items {
            switch item {
            case .frame(let index, let image, let epoch):
                guard epoch == memoryEpoch else {
                    leftBehind.append(image)
                    continue
                }
                batchHolds = max(0, batchHolds - frameBytes)
                if isInWindow(index) && frames[index] == nil { frames[index] = image } else { leftBehind.append(image) }
            case .done(let returned, let epoch):
                isDecoding = false
                batchHolds = 0
                guard epoch == memoryEpoch, let returned else { continue }
                composer = returned
                composerBytes = returned.byteCount
            }
        }
        return !items.isEmpty
    }

    /// Its row left the visible range: the batch under way stops after its frame.
    func stop() {
        guard !isStopped else { return }
        isStopped = true
        mailbox.stop()
    }

    func play() {
        isStopped = false
    }

    /// Drops every decoded frame and the composer (a trim, or memory needed
    /// elsewhere). Playing again starts from the first frame's canvas.
    func dropMemory() {
        frames.removeAll()
        leftBehind.removeAll()
        decodedAhead = 0
        composer = nil
        composerBytes = 0
        // A batch under way stops; what it holds counts until it ends.
        memoryEpoch += 1
        if isDecoding { mailbox.stop() }
    }

    /// Frees the frames left behind here, when memory is short: rarer than a frame
    /// call, and worth the malloc lock it may wait on.
    func releaseLeftBehind() {
        leftBehind.removeAll()
    }

    /// Keeps only the frame shown.
    func dropFramesAhead() {
        for index in frames.keys where index != playhead { frames[index] = nil }
        decodedAhead = 0
    }

    /// The window while memory is short: the frame shown and the two after it, which
    /// at 60 Hz polling leaves a decode thread a frame's duration to catch up.
    static let squeezedWindow = 3

    /// The squeezed window while memory is short, or the whole buffer again; frames
    /// past it go.
    func squeeze(_ squeezed: Bool) {
        window = squeezed ? min(Self.squeezedWindow, capacity) : capacity
        for index in frames.keys where !isInWindow(index) { frames[index] = nil }
        decodedAhead = 0
        // A batch for the wider window stops; the next asks for what is missing.
        if squeezed && isDecoding { mailbox.stop() }
    }

    /// What the frames past the squeezed window would hold at `capacity`.
    var bytesPastSqueezedWindow: Int { max(0, capacity - Self.squeezedWindow) * frameBytes }

    private func isInWindow(_ index: Int) -> Bool {
        let count = source.frameCount
        return (index - playhead + count) % count < window
    }
}
