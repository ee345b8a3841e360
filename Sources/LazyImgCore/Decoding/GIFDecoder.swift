import CGif

/// Decodes the first frame of a GIF with giflib's record-level API, and tells whether
/// more frames follow.
///
/// `DGifSlurp` would decode every frame of an animation before returning, and a
/// thousand-frame GIF in a list cell shows only its first one; so records are read one
/// at a time and reading stops at the second image's descriptor, before any of its
/// pixel data. The frame is drawn at its offset onto a transparent canvas of the
/// logical screen's size, as a viewer shows it.
///
/// giflib keeps all state in the file handle it returns, so the type holds nothing.
public struct GIFDecoder: ImageDecoding {
    public init() {}

    public func decode(_ data: [UInt8], options: DecodeOptions, limits: DecodeLimits) throws(LoaderError) -> DecodedImage {
        try data.withUnsafeBufferPointer { (bytes) throws(LoaderError) -> DecodedImage in
            guard let base = bytes.baseAddress, !bytes.isEmpty else { throw .decode }
            var source = GIFByteSource(base: base, count: bytes.count)
            return try withUnsafeMutablePointer(to: &source) { (sourcePointer) throws(LoaderError) -> DecodedImage in
                var openError: Int32 = 0
                guard let gif = DGifOpen(sourcePointer, { gif, buffer, count in GIFByteSource.read(gif, buffer, count) },
                                         &openError)
                else { throw openError == D_GIF_ERR_NOT_ENOUGH_MEM ? .noMemory : .decode }
                defer { DGifCloseFile(gif, nil) }
                return try decodeFirstFrame(gif, options: options, limits: limits)
            }
        }
    }

    private func decodeFirstFrame(_ gif: UnsafeMutablePointer<GifFileType>, options: DecodeOptions,
                                  limits: DecodeLimits) throws(LoaderError) -> DecodedImage {
        // Screen sides are 16-bit, so products of them cannot overflow.
        let screenWidth = Int(gif.pointee.SWidth), screenHeight = Int(gif.pointee.SHeight)
        guard screenWidth * screenHeight <= limits.maxPixels else { throw .tooLarge }

        let transparentIndex = try skipToFirstImage(gif)
        guard DGifGetImageDesc(gif) == GIF_OK else { throw .decode }
        let frame = gif.pointee.Image
        let left = Int(frame.Left), top = Int(frame.Top), width = Int(frame.Width), height = Int(frame.Height)
        guard width > 0, height > 0, left >= 0, top >= 0 else { throw .decode }
        guard width * height <= limits.maxPixels else { throw .tooLarge }
        // Some encoders write a 0x0 screen; viewers then use the frame's extent.
        let canvasWidth = screenWidth > 0 ? screenWidth : left + width
        let canvasHeight = screenHeight > 0 ? screenHeight : top + height
        guard canvasWidth * canvasHeight <= limits.maxPixels else { throw .tooLarge }
        let colours = try palette(frame.ColorMap ?? gif.pointee.SColorMap, transparentIndex: transparentIndex)

        let geometry = OutputGeometry(displayedWidth: canvasWidth, height: canvasHeight, orientation: .up, options: options)
        let builder = DecodedImageBuilder(geometry: geometry, format: options.format, sourceWidth: canvasWidth,
                                          sourceHeight: canvasHeight, isAnimated: false)
        let image: DecodedImage
        if frame.Interlace {
            // Interlaced rows come in four passes, so the frame is drawn whole first.
            guard let canvas = DecodedImage(width: canvasWidth, height: canvasHeight, sourceWidth: canvasWidth,
                                            sourceHeight: canvasHeight)
            else { throw .tooLarge }  // DecodedImage refuses only absurd sizes
            try drawFrame(gif, into: canvas.pixels, stride: canvas.stride, canvasWidth: canvasWidth,
                          canvasHeight: canvasHeight, colours: colours)
            image = try builder.finish(canvas)
        } else {
            // Top to bottom: each canvas row is shrunk as it is drawn, and the full-size
            // canvas never exists.
            image = try builder.buildByRows(decodedWidth: canvasWidth, decodedHeight: canvasHeight) {
                (addRow) throws(LoaderError) in
                try drawFrameByRows(gif, canvasWidth: canvasWidth, canvasHeight: canvasHeight, colours: colours,
                                    into: addRow)
            }
        }
        // Known only once the frame's data is consumed.
        image.isAnimated = Self.anotherImageFollows(gif)
        return image
    }

    /// Reads records up to the first image descriptor; returns the transparent palette
    /// index of the last Graphic Control Extension before it, if it sets one.
    private func skipToFirstImage(_ gif: UnsafeMutablePointer<GifFileType>) throws(LoaderError) -> Int? {
        var transparentIndex: Int?
        let found = Self.skipToNextImage(gif) { code, block in
            // A sub-block is its length byte, then the bytes. The GCE's are: packed
            // flags (bit 0: transparency), delay (2 bytes), transparent index.
            if code == GRAPHICS_EXT_FUNC_CODE, block[0] >= 4 {
                transparentIndex = block[1] & 1 != 0 ? Int(block[4]) : nil
            }
        }
        // The trailer (or garbage) before any image: nothing to show.
        guard found else { throw .decode }
        return transparentIndex
    }

    /// The colour table as RGBA words, 256 entries so any 8-bit index is in range.
    /// Indices past the table, like the transparent one, stay fully transparent.
    private func palette(_ map: UnsafeMutablePointer<ColorMapObject>?, transparentIndex: Int?) throws(LoaderError) -> [UInt32] {
        guard let map, let entries = map.pointee.Colors, map.pointee.ColorCount > 0 else { throw .decode }
        var colours = [UInt32](repeating: 0, count: 256)
        for index in 0..<min(Int(map.pointee.ColorCount), 256) where index != transparentIndex {
            let colour = entries[index]
            // Bytes R, G, B, A in memory on this little-endian platform.
            colours[index] = UInt32(colour.Red) | UInt32(colour.Green) << 8 | UInt32(colour.Blue) << 16 | 0xFF00_0000
        }
        return colours
    }

    /// Reads the frame's rows and draws them onto a transparent canvas; rows and columns
    /// outside the canvas are read and dropped.
    private func drawFrame(_ gif: UnsafeMutablePointer<GifFileType>, into canvas: UnsafeMutableRawPointer, stride: Int,
                           canvasWidth: Int, canvasHeight: Int, colours: [UInt32]) throws(LoaderError) {
        for y in 0..<canvasHeight {
            (canvas + y * stride).initializeMemory(as: UInt8.self, repeating: 0, count: canvasWidth * 4)
        }
        let frame = gif.pointee.Image
        let left = Int(frame.Left), top = Int(frame.Top), width = Int(frame.Width), height = Int(frame.Height)
        let visibleColumns = max(0, min(width, canvasWidth - left))
        var line = [GifPixelType](repeating: 0, count: width)
        for row in Self.rowOrder(height: height, interlaced: frame.Interlace) {
            try Self.readLine(gif, into: &line)
            let y = top + row
            guard y < canvasHeight else { continue }
            Self.draw(line, columns: visibleColumns, colours: colours, at: canvas + y * stride + left * 4)
        }
    }

    /// A non-interlaced frame, one canvas row at a time: each row is cleared, gets the
    /// frame's line if the frame covers it, and goes to `addRow`. Frame rows below the
    /// canvas are read and dropped, so the next record can be read.
    private func drawFrameByRows(_ gif: UnsafeMutablePointer<GifFileType>, canvasWidth: Int, canvasHeight: Int,
                                 colours: [UInt32], into addRow: (UnsafeRawPointer) -> Void) throws(LoaderError) {
        let frame = gif.pointee.Image
        let left = Int(frame.Left), top = Int(frame.Top), width = Int(frame.Width), height = Int(frame.Height)
        let visibleColumns = max(0, min(width, canvasWidth - left))
        var line = [GifPixelType](repeating: 0, count: width)
        let row = UnsafeMutableRawPointer.allocate(byteCount: canvasWidth * 4, alignment: 16)
        defer { row.deallocate() }
        for y in 0..<canvasHeight {
            row.initializeMemory(as: UInt8.self, repeating: 0, count: canvasWidth * 4)
            if y >= top && y < top + height {
                try Self.readLine(gif, into: &line)
                Self.draw(line, columns: visibleColumns, colours: colours, at: row + left * 4)
            }
            addRow(row)
        }
        for _ in min(height, max(0, canvasHeight - top))..<height {
            try Self.readLine(gif, into: &line)
        }
    }

    private static func readLine(_ gif: UnsafeMutablePointer<GifFileType>, into line: inout [GifPixelType])
        throws(LoaderError) {
        let result = line.withUnsafeMutableBufferPointer { DGifGetLine(gif, $0.baseAddress, Int32($0.count)) }
        guard result == GIF_OK else { throw .decode }
    }

    /// Writes the first `columns` pixels of a line as RGBA at `out`.
    private static func draw(_ line: [GifPixelType], columns: Int, colours: [UInt32], at out: UnsafeMutableRawPointer) {
        for x in 0..<columns {
            out.storeBytes(of: colours[Int(line[x])], toByteOffset: x * 4, as: UInt32.self)
        }
    }

    /// The frame rows in the order the file stores them: top to bottom, or the four
    /// interlace passes (every 8th row from 0, every 8th from 4, every 4th from 2,
    /// every 2nd from 1).
    static func rowOrder(height: Int, interlaced: Bool) -> [Int] {
        guard interlaced else { return Array(0..<height) }
        let passes: [(start: Int, step: Int)] = [(0, 8), (4, 8), (2, 4), (1, 2)]
        return passes.flatMap { pass in Swift.stride(from: pass.start, to: height, by: pass.step) }
    }

    /// Whether another image descriptor follows the first frame. A damaged tail after
    /// a complete frame counts as "no".
    private static func anotherImageFollows(_ gif: UnsafeMutablePointer<GifFileType>) -> Bool {
        skipToNextImage(gif) { _, _ in }
    }

    /// Reads record types, handing each extension's first sub-block to `onExtension`
    /// and skipping the rest, until an image descriptor (true) or the trailer, garbage
    /// or a read error (false). Each call consumes at least one byte of the finite
    /// input, so a file of endless empty extensions ends at its last byte, not in a hang.
    private static func skipToNextImage(_ gif: UnsafeMutablePointer<GifFileType>,
                                        onExtension: (_ code: Int32, _ block: UnsafeMutablePointer<GifByteType>) -> Void)
        -> Bool {
        while true {
            var record = UNDEFINED_RECORD_TYPE
            guard DGifGetRecordType(gif, &record) == GIF_OK else { return false }
            switch record {
            case IMAGE_DESC_RECORD_TYPE:
                return true
            case EXTENSION_RECORD_TYPE:
                var code: Int32 = 0
                var block: UnsafeMutablePointer<GifByteType>?
                guard DGifGetExtension(gif, &code, &block) == GIF_OK else { return false }
                if let first = block { onExtension(code, first) }
                while block != nil {
                    guard DGifGetExtensionNext(gif, &block) == GIF_OK else { return false }
                }
            default:
                return false
            }
        }
    }
}
