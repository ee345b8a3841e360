/// An animated file's bytes and the frames found in them: what playing it needs.
///
/// Made on a decode thread next to the first frame (`make(from:limits:)`), when the
/// loader plays animations, and attached to that image, so it lives exactly as long
/// as the first frame does and is counted with it in the memory cache. Immutable.
///
/// The frames are found by walking the file's blocks (GIF) or chunks (WebP) without
/// decoding any pixels: frame n is then decoded from its own bytes. The count is the
/// frames whose records are complete and sane in the file, never a number the file
/// states, and at most `maxFrames`; whatever comes after is not played.
public final class AnimationSource: Sendable {
    enum Format: Sendable {
        case gif
        case webp
    }

    let format: Format
    let bytes: [UInt8]
    let canvasWidth: Int
    let canvasHeight: Int
    let frames: [AnimationFrame]
    /// GIF: where the global colour table ends and the first block begins.
    let headerEnd: Int
    /// How many times the animation plays; 0 = forever.
    public let loopCount: Int
    /// Each frame's start within one play, in milliseconds.
    private let starts: [UInt64]
    /// One play, in milliseconds.
    public let duration: UInt64

    /// 65,536 frames: 27 minutes at 40 ms a frame. The frame table costs about 56 bytes
    /// a frame, so the cap bounds it at 3.5 MiB whatever the file holds.
    static let maxFrames = 1 << 16

    /// Durations under 20 ms (GIF's 0 and 1 centisecond, used by ads to flash)
    /// play for 100 ms, as browsers show them.
    static func playedDuration(milliseconds: Int) -> Int {
        milliseconds < 20 ? 100 : milliseconds
    }

    init(format: Format, bytes: [UInt8], canvasWidth: Int, canvasHeight: Int, headerEnd: Int,
         frames: [AnimationFrame], loopCount: Int) {
        self.format = format
        self.bytes = bytes
        self.canvasWidth = canvasWidth
        self.canvasHeight = canvasHeight
        self.headerEnd = headerEnd
        self.frames = frames
        self.loopCount = loopCount
        var starts: [UInt64] = []
        starts.reserveCapacity(frames.count)
        var time: UInt64 = 0
        // At most 2^16 frames of at most 2^24 ms each: below 2^40, no overflow.
        for frame in frames {
            starts.append(time)
            time += UInt64(frame.duration)
        }
        self.starts = starts
        duration = time
    }

    /// The animation in `bytes` as the loader may play it, or nil: not an animated GIF
    /// or WebP with two complete frames, or one whose canvas does not fit `limits`.
    public static func make(from bytes: [UInt8], limits: DecodeLimits) -> AnimationSource? {
        let source: AnimationSource?
        switch ImageFormat(sniffing: bytes) {
        case .gif: source = GIFFrameIndex.source(bytes, limits: limits)
        case .webp: source = WebPFrameIndex.source(bytes, limits: limits)
        default: source = nil
        }
        guard let source, source.frames.count >= 2,
              AnimationComposer.persistentBytes(of: source) <= limits.maxWorkingBytes
        else { return nil }
        return source
    }

    public var frameCount: Int { frames.count }

    /// The bytes it holds: the file, the frame table and the start times.
    public var byteCount: Int {
        bytes.count + frames.count * (MemoryLayout<AnimationFrame>.stride + MemoryLayout<UInt64>.stride)
    }

    /// Frame `index`'s duration in milliseconds, as played.
    public func duration(ofFrame index: Int) -> Int {
        frames[index].duration
    }

    /// The frame shown `time` milliseconds after the animation started, and when the
    /// next one is due on the same clock (nil once the last play has ended).
    public func frame(at time: UInt64) -> (index: Int, nextChange: UInt64?) {
        let plays = UInt64(loopCount)
        if loopCount > 0, time / duration >= plays {
            return (frames.count - 1, nil)
        }
        let within = time % duration
        // The last start at or before `within`.
        var low = 0, high = starts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if starts[middle] <= within { low = middle } else { high = middle - 1 }
        }
        let end = low + 1 < starts.count ? starts[low + 1] : duration
        // The host's time may be anything: saturated rather than wrapped.
        let (next, overflow) = (time - within).addingReportingOverflow(end)
        return (low, overflow ? .max : next)
    }
}

/// One frame of an animation as its file describes it.
struct AnimationFrame: Sendable {
    enum Disposal: Sendable {
        /// Left as drawn (GIF 0 and 1, WebP without the dispose bit).
        case keep
        /// Its rectangle cleared to transparent before the next frame (GIF 2, WebP
        /// dispose to background: browsers use transparent, not the background colour).
        case clear
        /// Its rectangle put back as it was before the frame was drawn (GIF 3).
        case restore
    }

    /// Where the frame sits on the canvas; a GIF frame may reach past it (clipped).
    var left: Int32
    var top: Int32
    var width: Int32
    var height: Int32
    /// Milliseconds, as played (`AnimationSource.playedDuration`).
    var duration: Int
    var disposal: Disposal
    /// WebP: alpha-blended over the canvas, else written over it. GIF frames always
    /// blend (their transparent pixels show what is under them).
    var blends: Bool
    /// GIF: the transparent palette index, or -1.
    var transparentIndex: Int16
    /// GIF: the offset of the image descriptor. WebP: the frame's bitstream (the
    /// chunks after the ANMF header), `dataStart ..< dataEnd`.
    var dataStart: Int
    var dataEnd: Int

    /// The rectangle's pixels inside a `width` x `height` canvas.
    func visiblePixels(canvasWidth: Int, canvasHeight: Int) -> Int {
        let columns = max(0, min(Int(left) + Int(width), canvasWidth) - Int(left))
        let rows = max(0, min(Int(top) + Int(height), canvasHeight) - Int(top))
        return columns * rows
    }
}
