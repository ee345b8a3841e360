import CGif

/// Decodes the first frame of a GIF with giflib's record-level API, and tells whether
/// more frames follow.
///
/// `DGifSlurp` would decode every frame of an animation before returning, and a
/// thousand-frame GIF in a list cell shows only its first one; so records are read one
/// at a time and reading stops at the second image's descriptor, before any of its
/// pixel data. The frame is drawn at its offset onto transparent canvas rows of the
/// logical screen's size, as a viewer shows it, and each row goes to the resampler as
/// it is made: the full-size canvas never exists.
///
/// giflib keeps all state in the file handle it returns, so the type holds nothing
/// but the reason for its last refusal.
public final class GIFDecoder: ImageDecoding {
    public private(set) var lastFailureReason = ""

    public init() {}

    public func decode(_ data: [UInt8], options: DecodeOptions, limits: DecodeLimits) throws(LoaderError) -> DecodedImage {
        lastFailureReason = ""
        return try data.withUnsafeBufferPointer { (bytes) throws(LoaderError) -> DecodedImage in
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
        // Screen and frame sides are 16-bit, so sums and products of them cannot overflow.
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
        let colours = try Self.palette(frame.ColorMap ?? gif.pointee.SColorMap, transparentIndex: transparentIndex)

        let geometry = OutputGeometry(displayedWidth: canvasWidth, height: canvasHeight, orientation: .up, options: options)
        let builder = DecodedImageBuilder(geometry: geometry, format: options.format, sourceWidth: canvasWidth,
                                          sourceHeight: canvasHeight, isAnimated: false)
        let working = Self.workingBytes(canvasWidth: canvasWidth, frameWidth: width, frameHeight: height,
                                        interlaced: frame.Interlace).addingSaturating(builder.cropScratchBytes())
        if let refusal = limits.workingMemoryRefusal("GIF of \(canvasWidth)x\(canvasHeight)", needs: working) {
            lastFailureReason = refusal
            throw .tooLarge
        }
        // Interlaced lines come in four passes, so their palette indices (a byte a
        // pixel) are read whole before the first canvas row can be made.
        let lines = try frame.Interlace ? FrameLines.read(gif, width: width, height: height) : FrameLines(width: width)
        let image = try builder.buildByRows(decodedWidth: canvasWidth, decodedHeight: canvasHeight) {
            (addRow: (UnsafeRawPointer, Range<Int>) -> Void) throws(LoaderError) in
            try drawFrameByRows(gif, lines: lines, canvasWidth: canvasWidth, canvasHeight: canvasHeight,
                                colours: colours, into: addRow)
        }
        // Known only once the frame's data is consumed.
        image.isAnimated = Self.anotherImageFollows(gif)
        return image
    }

    /// What a decode holds besides its result: the canvas row, the resampler's row of
    /// sums and column weights (about 28 bytes a canvas pixel), the frame's line, and
    /// for an interlaced frame all its palette indices.
    static func workingBytes(canvasWidth: Int, frameWidth: Int, frameHeight: Int, interlaced: Bool) -> Int {
        32 * canvasWidth + frameWidth + (interlaced ? frameWidth * frameHeight : 0)
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
    static func palette(_ map: UnsafeMutablePointer<ColorMapObject>?, transparentIndex: Int?) throws(LoaderError) -> [UInt32] {
        guard let map, let entries = map.pointee.Colors, map.pointee.ColorCount > 0 else { throw .decode }
        var colours = [UInt32](repeating: 0, count: 256)
        for index in 0..<min(Int(map.pointee.ColorCount), 256) where index != transparentIndex {
            let colour = entries[index]
            // Bytes R, G, B, A in memory on this little-endian platform.
            colours[index] = UInt32(colour.Red) | UInt32(colour.Green) << 8 | UInt32(colour.Blue) << 16 | 0xFF00_0000
        }
        return colours
    }

    /// The frame's lines: read one at a time as the canvas rows need them, or (for an
    /// interlaced frame) all read already, in row order.
    final class FrameLines {
        let width: Int
        private var line: [GifPixelType]
        private let all: [GifPixelType]?

        init(width: Int) {
            self.width = width
            line = [GifPixelType](repeating: 0, count: width)
            all = nil
        }

        private init(width: Int, all: [GifPixelType]) {
            self.width = width
            line = []
            self.all = all
        }

        /// Every line of an interlaced frame, put in row order as it is read.
        static func read(_ gif: UnsafeMutablePointer<GifFileType>, width: Int, height: Int) throws(LoaderError) -> FrameLines {
            var all = [GifPixelType](repeating: 0, count: width * height)
            var line = [GifPixelType](repeating: 0, count: width)
            for row in GIFDecoder.rowOrder(height: height, interlaced: true) {
                try GIFDecoder.readLine(gif, into: &line)
                all.replaceSubrange((row * width)..<((row + 1) * width), with: line)
            }
            return FrameLines(width: width, all: all)
        }

        /// Frame row `row` (rows are asked for in order, each once), read from the file
        /// unless all were read already.
        func line(_ row: Int, from gif: UnsafeMutablePointer<GifFileType>) throws(LoaderError) -> ArraySlice<GifPixelType> {
            if let all { return all[(row * width)..<((row + 1) * width)] }
            try GIFDecoder.readLine(gif, into: &line)
            return line[...]
        }

        var readsFromFile: Bool { all == nil }
    }

    /// One canvas row at a time: each row is cleared, gets the frame's line if the
    /// frame covers it, and goes to `addRow`. Frame lines below the canvas are read and
    /// dropped, so the next record can be read.
    private func drawFrameByRows(_ gif: UnsafeMutablePointer<GifFileType>, lines: FrameLines, canvasWidth: Int,
                                 canvasHeight: Int, colours: [UInt32],
                                 into addRow: (UnsafeRawPointer, Range<Int>) -> Void) throws(LoaderError) {
        let frame = gif.pointee.Image
        let left = Int(frame.Left), top = Int(frame.Top), height = Int(frame.Height)
        let visibleColumns = max(0, min(lines.width, canvasWidth - left))
        let frameColumns = min(left, canvasWidth)..<min(left + visibleColumns, canvasWidth)
        let row = UnsafeMutableRawPointer.allocate(byteCount: canvasWidth * 4, alignment: 16)
        defer { row.deallocate() }
        row.initializeMemory(as: UInt8.self, repeating: 0, count: canvasWidth * 4)
        for y in 0..<canvasHeight {
            guard y >= top && y < top + height else {
                addRow(row, 0..<0)
                continue
            }
            Self.draw(try lines.line(y - top, from: gif), columns: visibleColumns, colours: colours,
                      at: row + left * 4)
            addRow(row, frameColumns)
            // Rows below the frame are passed whole when nothing is shrunk.
            (row + frameColumns.lowerBound * 4).initializeMemory(as: UInt8.self, repeating: 0,
                                                                 count: frameColumns.count * 4)
        }
        guard lines.readsFromFile else { return }
        for frameRow in min(height, max(0, canvasHeight - top))..<height {
            _ = try lines.line(frameRow, from: gif)
        }
    }

    static func readLine(_ gif: UnsafeMutablePointer<GifFileType>, into line: inout [GifPixelType])
        throws(LoaderError) {
        let result = line.withUnsafeMutableBufferPointer { DGifGetLine(gif, $0.baseAddress, Int32($0.count)) }
        guard result == GIF_OK else { throw .decode }
    }

    /// Writes the first `columns` pixels of a line as RGBA at `out`.
    private static func draw(_ line: ArraySlice<GifPixelType>, columns: Int, colours: [UInt32],
                             at out: UnsafeMutableRawPointer) {
        for x in 0..<columns {
            out.storeBytes(of: colours[Int(line[line.startIndex + x])], toByteOffset: x * 4, as: UInt32.self)
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
