import CGif

/// One image of a generated GIF: palette indices, row by row, at an offset in the screen.
public struct GIFTestFrame: Sendable {
    public var left: Int
    public var top: Int
    public var width: Int
    public var height: Int
    /// `width * height` palette indices, top row first (the encoder reorders them for
    /// interlacing).
    public var indices: [UInt8]
    public var interlaced: Bool
    /// Written as a Graphic Control Extension before the image.
    public var transparentIndex: UInt8?

    public init(left: Int = 0, top: Int = 0, width: Int, height: Int, indices: [UInt8], interlaced: Bool = false,
                transparentIndex: UInt8? = nil) {
        self.left = left
        self.top = top
        self.width = width
        self.height = height
        self.indices = indices
        self.interlaced = interlaced
        self.transparentIndex = transparentIndex
    }
}

/// A GIF89a encoded by giflib (EGifOpen with a write callback), with a global palette of
/// RGB triples (padded to a power of two). Returns [] when giflib refuses.
public func makeGIF(screenWidth: Int, screenHeight: Int, palette: [[UInt8]], frames: [GIFTestFrame]) -> [UInt8] {
    final class Sink { var bytes: [UInt8] = [] }
    let sink = Sink()
    var error: Int32 = 0
    guard let gif = EGifOpen(Unmanaged.passUnretained(sink).toOpaque(), { gif, data, count in
        guard let gif, let data, let user = gif.pointee.UserData else { return 0 }
        Unmanaged<Sink>.fromOpaque(user).takeUnretainedValue().bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(count)))
        return count
    }, &error) else { return [] }

    var colourCount = 2
    while colourCount < palette.count { colourCount *= 2 }
    let colours = (0..<colourCount).map { index -> GifColorType in
        let rgb = index < palette.count ? palette[index] : [0, 0, 0]
        return GifColorType(Red: rgb[0], Green: rgb[1], Blue: rgb[2])
    }
    let map = GifMakeMapObject(Int32(colourCount), colours)
    defer { GifFreeMapObject(map) }
    EGifSetGifVersion(gif, true)
    var ok = map != nil
    ok = ok && EGifPutScreenDesc(gif, Int32(screenWidth), Int32(screenHeight), 8, 0, map) == GIF_OK
    for frame in frames where ok {
        if let transparent = frame.transparentIndex {
            let control: [UInt8] = [1, 0, 0, transparent]  // transparency flag, no delay
            ok = ok && EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, 4, control) == GIF_OK
        }
        ok = ok && EGifPutImageDesc(gif, Int32(frame.left), Int32(frame.top), Int32(frame.width), Int32(frame.height),
                                    frame.interlaced, nil) == GIF_OK
        // giflib writes rows in the order given; interlaced files store the passes.
        let rows = frame.interlaced
            ? [(0, 8), (4, 8), (2, 4), (1, 2)].flatMap { stride(from: $0.0, to: frame.height, by: $0.1) }
            : Array(0..<frame.height)
        for row in rows where ok {
            var line = Array(frame.indices[(row * frame.width)..<((row + 1) * frame.width)])
            ok = EGifPutLine(gif, &line, Int32(frame.width)) == GIF_OK
        }
    }
    // Closing writes the trailer and frees the handle, so it happens whatever failed.
    let closed = EGifCloseFile(gif, &error) == GIF_OK
    return ok && closed ? sink.bytes : []
}
