/// Draws an animation's frames one after another on a full-size canvas, as browsers
/// compose them, and shrinks the canvas into the box for each frame asked for.
///
/// Composing at full size and shrinking after is what makes the frames right at the
/// box size: a frame blends with what is under it pixel by pixel, and transparent
/// holes, frames at odd offsets and disposal would all leave errors if the canvas were
/// kept at the box size (each box pixel would mix the previous frame and the new one
/// by coverage, and the error would carry into every later frame). The price is one
/// canvas of 4 bytes a pixel (and for GIF "restore to previous", a copy of the largest
/// such frame's rectangle), held while the animation plays and counted with its
/// frames; `AnimationSource.make` refuses animations whose canvas does not fit
/// `maxWorkingBytes`.
///
/// Used by one decode thread at a time (the player lends it to one job).
public final class AnimationComposer {
    let source: AnimationSource
    /// Straight RGBA, rows `stride` bytes apart; transparent before the first frame.
    let canvas: UnsafeMutableRawPointer
    let stride: Int
    /// The canvas under the frame last drawn, when that frame restores it after.
    private let saved: UnsafeMutableRawPointer?
    /// The frame whose picture the canvas holds, its disposal not yet applied; -1
    /// before the first.
    private(set) var composed = -1

    /// What it holds: the canvas and the copy for "restore to previous".
    static func persistentBytes(of source: AnimationSource) -> Int {
        4 * source.canvasWidth * source.canvasHeight + 4 * largestRestoredArea(of: source)
    }

    private static func largestRestoredArea(of source: AnimationSource) -> Int {
        source.frames.lazy.filter { $0.disposal == .restore }
            .map { $0.visiblePixels(canvasWidth: source.canvasWidth, canvasHeight: source.canvasHeight) }
            .max() ?? 0
    }

    var byteCount: Int { Self.persistentBytes(of: source) }

    public init(_ source: AnimationSource) {
        self.source = source
        stride = 4 * source.canvasWidth
        let bytes = stride * source.canvasHeight
        canvas = .allocate(byteCount: bytes, alignment: 16)
        canvas.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
        let restored = Self.largestRestoredArea(of: source)
        saved = restored > 0 ? .allocate(byteCount: 4 * restored, alignment: 16) : nil
    }

    deinit {
        canvas.deallocate()
        saved?.deallocate()
    }

    /// Frame `index` shrunk into `options`' box. Composes from the first frame again
    /// when `index` comes before the frame the canvas holds.
    public func render(frame index: Int, options: DecodeOptions, limits: DecodeLimits) throws(LoaderError) -> DecodedImage {
        compose(through: index, limits: limits)
        let width = source.canvasWidth, height = source.canvasHeight
        let geometry = OutputGeometry(displayedWidth: width, height: height, orientation: .up, options: options)
        let builder = DecodedImageBuilder(geometry: geometry, format: options.format, sourceWidth: width,
                                          sourceHeight: height, isAnimated: true)
        return try builder.buildByRows(decodedWidth: width, decodedHeight: height) {
            (addRow: (UnsafeRawPointer) -> Void) in
            for y in 0..<height { addRow(canvas + y * stride) }
        }
    }

    /// Draws frames up to `index`. A frame that cannot be decoded (corrupt data, or
    /// more working memory than `limits` allow) leaves what it drew, as browsers show
    /// a broken frame: the animation goes on.
    func compose(through index: Int, limits: DecodeLimits) {
        if index < composed { restart() }
        while composed < index {
            if composed >= 0 { dispose(source.frames[composed]) }
            composed += 1
            let frame = source.frames[composed]
            if frame.disposal == .restore { copy(frame, toSaved: true) }
            switch source.format {
            case .gif: drawGIF(frame)
            case .webp: drawWebP(frame, limits: limits)
            }
        }
    }

    private func restart() {
        canvas.initializeMemory(as: UInt8.self, repeating: 0, count: stride * source.canvasHeight)
        composed = -1
    }

    /// After a frame was shown, before the next is drawn.
    private func dispose(_ frame: AnimationFrame) {
        switch frame.disposal {
        case .keep:
            return
        case .clear:
            let (columns, rows) = clipped(frame)
            for y in rows {
                (canvas + y * stride + columns.lowerBound * 4).initializeMemory(as: UInt8.self, repeating: 0,
                                                                               count: columns.count * 4)
            }
        case .restore:
            copy(frame, toSaved: false)
        }
    }

    /// Copies the frame's rectangle of the canvas into `saved`, or back.
    private func copy(_ frame: AnimationFrame, toSaved: Bool) {
        guard let saved else { return }
        let (columns, rows) = clipped(frame)
        let rowBytes = columns.count * 4
        for (index, y) in rows.enumerated() {
            let onCanvas = canvas + y * stride + columns.lowerBound * 4, aside = saved + index * rowBytes
            if toSaved {
                aside.copyMemory(from: onCanvas, byteCount: rowBytes)
            } else {
                onCanvas.copyMemory(from: aside, byteCount: rowBytes)
            }
        }
    }

    /// The canvas columns and rows the frame covers.
    func clipped(_ frame: AnimationFrame) -> (columns: Range<Int>, rows: Range<Int>) {
        let width = source.canvasWidth, height = source.canvasHeight
        let left = min(Int(frame.left), width), top = min(Int(frame.top), height)
        return (left..<min(left + Int(frame.width), width), top..<min(top + Int(frame.height), height))
    }
}
