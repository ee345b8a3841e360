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
    /// Written as a Graphic Control Extension before the image, with the delay (in
    /// centiseconds) and the disposal method (0-7) when either is set.
    public var transparentIndex: UInt8?
    public var delay: Int
    public var disposal: Int
    /// A local colour table (RGB triples) instead of the global one.
    public var palette: [[UInt8]]?

    public init(left: Int = 0, top: Int = 0, width: Int, height: Int, indices: [UInt8], interlaced: Bool = false,
                transparentIndex: UInt8? = nil, delay: Int = 0, disposal: Int = 0, palette: [[UInt8]]? = nil) {
        self.left = left
        self.top = top
        self.width = width
        self.height = height
        self.indices = indices
        self.interlaced = interlaced
        self.transparentIndex = transparentIndex
        self.delay = delay
        self.disposal = disposal
        self.palette = palette
    }
}

/// A GIF89a encoded by giflib (EGifOpen with a write callback), with a global palette of
/// RGB triples (padded to a power of two) and, when `loopCount` is set, a NETSCAPE2.0
/// block with that count. Returns [] when giflib refuses.
public func makeGIF(screenWidth: Int, screenHeight: Int, palette: [[UInt8]], frames: [GIFTestFrame],
                    loopCount: Int? = nil) -> [UInt8] {
    final class Sink { var bytes: [UInt8] = [] }
    let sink = Sink()
    var error: Int32 = 0
    guard let gif = EGifOpen(Unmanaged.passUnretained(sink).toOpaque(), { gif, data, count in
        guard let gif, let data, let user = gif.pointee.UserData else { return 0 }
        Unmanaged<Sink>.fromOpaque(user).takeUnretainedValue().bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(count)))
        return count
    }, &error) else { return [] }

    func colourMap(_ palette: [[UInt8]]) -> UnsafeMutablePointer<ColorMapObject>? {
        var colourCount = 2
        while colourCount < palette.count { colourCount *= 2 }
        let colours = (0..<colourCount).map { index -> GifColorType in
            let rgb = index < palette.count ? palette[index] : [0, 0, 0]
            return GifColorType(Red: rgb[0], Green: rgb[1], Blue: rgb[2])
        }
        return GifMakeMapObject(Int32(colourCount), colours)
    }
    let map = colourMap(palette)
    defer { GifFreeMapObject(map) }
    EGifSetGifVersion(gif, true)
    var ok = map != nil
    ok = ok && EGifPutScreenDesc(gif, Int32(screenWidth), Int32(screenHeight), 8, 0, map) == GIF_OK
    if let loopCount, ok {
        ok = EGifPutExtensionLeader(gif, APPLICATION_EXT_FUNC_CODE) == GIF_OK
            && EGifPutExtensionBlock(gif, 11, Array("NETSCAPE2.0".utf8)) == GIF_OK
            && EGifPutExtensionBlock(gif, 3, [1, UInt8(loopCount & 0xFF), UInt8(loopCount >> 8)]) == GIF_OK
            && EGifPutExtensionTrailer(gif) == GIF_OK
    }
    for frame in frames where ok {
        if frame.transparentIndex != nil || frame.delay != 0 || frame.disposal != 0 {
            // Packed: disposal in bits 2-4, transparency flag in bit 0; delay LE; index.
            let packed = UInt8(frame.disposal << 2) | (frame.transparentIndex != nil ? 1 : 0)
            let control: [UInt8] = [packed, UInt8(frame.delay & 0xFF), UInt8(frame.delay >> 8),
                                    frame.transparentIndex ?? 0]
            ok = ok && EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, 4, control) == GIF_OK
        }
        let local = frame.palette.map(colourMap)
        defer { if let local { GifFreeMapObject(local) } }
        ok = ok && EGifPutImageDesc(gif, Int32(frame.left), Int32(frame.top), Int32(frame.width), Int32(frame.height),
                                    frame.interlaced, local ?? nil) == GIF_OK
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
