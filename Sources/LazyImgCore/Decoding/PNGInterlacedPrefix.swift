import CSpng

/// The start of an Adam7-interlaced PNG: how many of its seven passes it holds, and
/// their pixels.
///
/// Adam7 sends the image in seven passes; the first holds every 8th pixel of every
/// 8th row (a ceil(w/8) x ceil(h/8) image), in the first few percent of the data.
/// So a box that image covers needs only the file's start, as a progressive JPEG's
/// box at DCT scale 1/8 needs only its DC scans (`JPEGDCScans`). Unlike a DC, which
/// is its block's average, a pass-1 pixel is a point sample: the picture aliases
/// where a full decode would have averaged.
///
/// libspng decodes the start progressively, row by row, through `PNGChunkFilter`
/// handing the image data over in small pieces, so a start that ends mid-chunk still
/// decodes every row its bytes hold. Every limit of `PNGDecoder` holds: the pixel
/// budget, the working memory (rows, plus a full-size buffer only for `preview`),
/// and a CRC check of every chunk that came whole.
public enum PNGInterlacedPrefix {
    /// What a file's start holds.
    public struct Progress: Equatable, Sendable {
        public var width: Int
        public var height: Int
        public var isInterlaced: Bool
        /// Passes (0...7) whose every row the start holds, counting the ones an
        /// image this small has no pixels in. 0 when not interlaced.
        public var completePasses: Int
        /// How far into the file libspng had read when each complete pass's last row
        /// decoded (to within `pieceBytes`), in pass order.
        public var passEnds: [Int]
        /// Pass 1's rows decoded so far, of `firstPassRowCount`.
        public var firstPassRows: Int
        public var firstPassRowCount: Int
        /// Where the first IDAT chunk starts; nil when it has not come.
        public var imageDataStart: Int?
        /// How far into the file libspng had read when the bytes ran out or it stopped.
        public var bytesRead: Int

        /// Where pass 1 ended (`passEnds`); nil until it has.
        public var firstPassEnd: Int? { passEnds.first }

        /// Pass 1's size: every 8th pixel of every 8th row.
        public var firstPassSize: (width: Int, height: Int) { ((width + 7) / 8, (height + 7) / 8) }
    }

    /// How much image data the read callback hands over at once (see `PNGChunkFilter`).
    static let pieceBytes = 512

    /// Reads `bytes`, a start of a PNG, through pass `lastPass` (1...7) or as far as
    /// it goes. nil: the IHDR has not all come. Throws `.unsupported` when the bytes
    /// are no PNG, `.decode` for damage (a bad CRC, a bad zlib stream), `.tooLarge`
    /// past `limits`.
    public static func examine(_ bytes: [UInt8], throughPass lastPass: Int = 1,
                               limits: DecodeLimits = DecodeLimits()) throws(LoaderError) -> Progress? {
        guard let header = try header(bytes) else { return nil }
        var progress = Progress(width: header.width, height: header.height, isInterlaced: header.interlaced,
                                completePasses: 0, passEnds: [], firstPassRows: 0,
                                firstPassRowCount: (header.height + 7) / 8, imageDataStart: nil, bytesRead: 0)
        guard header.interlaced else { return progress }
        try withDecoder(bytes, limits: limits, fullImage: false) { (decoder) throws(LoaderError) in
            let rowBytes = header.width * 4
            let row = UnsafeMutableRawPointer.allocate(byteCount: rowBytes, alignment: 16)
            defer { row.deallocate() }
            progress.imageDataStart = imageDataStart(bytes)
            try decoder.rows(into: row, byteCount: rowBytes, throughPass: lastPass) { pass, _ in
                if pass == 0 { progress.firstPassRows += 1 }
            } passDidEnd: { pass, read in
                progress.completePasses = pass + 1
                progress.passEnds.append(read)
            }
            progress.bytesRead = decoder.bytesRead
        }
        return progress
    }

    /// Pass 1 of the start, fitted to `options` as `PNGDecoder` fits a whole file.
    /// Throws `.decode` when pass 1 is not all there.
    public static func decodeFirstPass(_ bytes: [UInt8], options: DecodeOptions,
                                       limits: DecodeLimits = DecodeLimits()) throws(LoaderError) -> DecodedImage {
        guard let header = try header(bytes), header.interlaced else { throw .decode }
        let size = Progress(width: header.width, height: header.height, isInterlaced: true, completePasses: 0,
                            passEnds: [], firstPassRows: 0, firstPassRowCount: 0, imageDataStart: nil,
                            bytesRead: 0).firstPassSize
        return try withDecoder(bytes, limits: limits, fullImage: false) { (decoder) throws(LoaderError) in
            let builder = decoder.builder(options)
            let rowBytes = header.width * 4
            let row = UnsafeMutableRawPointer.allocate(byteCount: rowBytes, alignment: 16)
            defer { row.deallocate() }
            let sample = UnsafeMutableRawPointer.allocate(byteCount: size.width * 4, alignment: 16)
            defer { sample.deallocate() }
            var passes = 0
            let image = try builder.buildByRows(decodedWidth: size.width, decodedHeight: size.height) {
                (addRow) throws(LoaderError) in
                try decoder.rows(into: row, byteCount: rowBytes, throughPass: 1) { _, _ in
                    // Pass 1's pixels sit every 8th in libspng's full-width row.
                    for x in 0..<size.width {
                        (sample + 4 * x).copyMemory(from: row + 32 * x, byteCount: 4)
                    }
                    addRow(sample)
                } passDidEnd: { pass, _ in passes = pass + 1 }
                guard passes >= 1 else { throw .decode }
            }
            return image
        }
    }

    /// The start's complete passes as the whole image, fitted to `options`, and how
    /// many passes that is: each pixel known fills its pass's block (8x8 for pass 1,
    /// down to 1x1 for pass 7), as a browser paints an interlaced PNG while it loads.
    /// One inflate both counts the passes and paints them: each row decodes straight
    /// to its place in a full-size RGBA buffer (counted as working memory), and once
    /// the bytes end the last complete pass's pixels fill their blocks, which also
    /// covers whatever of the next pass came. Throws `.decode` when not even pass 1
    /// is all there.
    public static func preview(_ bytes: [UInt8], options: DecodeOptions,
                               limits: DecodeLimits = DecodeLimits()) throws(LoaderError) -> (image: DecodedImage, passes: Int) {
        guard let header = try header(bytes), header.interlaced else { throw .decode }
        return try withDecoder(bytes, limits: limits, fullImage: true) { (decoder) throws(LoaderError) in
            let builder = decoder.builder(options)
            let (width, height) = (header.width, header.height)
            var complete = 0
            let image = try builder.build(decodedWidth: width, decodedHeight: height) {
                (pixels, rowStride) throws(LoaderError) in
                try decoder.rows(byteCount: width * 4, throughPass: 7, into: { pixels + $0 * rowStride },
                                 didDecode: { _, _ in }, passDidEnd: { pass, _ in complete = pass + 1 })
                guard complete >= 1 else { throw .decode }
                fillBlocks(pixels, stride: rowStride, width: width, height: height, block: Adam7.block[complete - 1])
            }
            return (image, complete)
        }
    }

    /// Gives every pixel the value of its block's top-left pixel, where the passes
    /// through one with blocks of `block` put their pixels. The blocks tile the image,
    /// and no block covers another's top-left, so rows go top to bottom in place: a
    /// block's top row is spread across, then copied to the rows below it.
    private static func fillBlocks(_ pixels: UnsafeMutableRawPointer, stride rowStride: Int, width: Int, height: Int,
                                   block: (width: Int, height: Int)) {
        for y in 0..<height {
            let line = pixels + y * rowStride
            guard y % block.height == 0 else {
                line.copyMemory(from: pixels + (y - y % block.height) * rowStride, byteCount: 4 * width)
                continue
            }
            guard block.width > 1 else { continue }
            for x in stride(from: 0, to: width, by: block.width) {
                let pixel = line.load(fromByteOffset: 4 * x, as: UInt32.self)
                for bx in (x + 1)..<min(width, x + block.width) {
                    line.storeBytes(of: pixel, toByteOffset: 4 * bx, as: UInt32.self)
                }
            }
        }
    }

    /// The IHDR's fields, once the signature and IHDR have come; libspng checks them
    /// when decoding.
    private static func header(_ bytes: [UInt8]) throws(LoaderError) -> (width: Int, height: Int, interlaced: Bool)? {
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard bytes.starts(with: signature.prefix(bytes.count)) else { throw .unsupported }
        // Signature, then length, "IHDR", 13 bytes and the CRC.
        guard bytes.count >= 33 else { return nil }
        guard bytes[12..<16].elementsEqual("IHDR".utf8) else { throw .decode }
        let width = bigEndian(bytes, at: 16), height = bigEndian(bytes, at: 20)
        guard width > 0, height > 0 else { throw .decode }
        return (width, height, bytes[28] == 1)
    }

    /// The first IDAT chunk's offset, read from the chunk lengths.
    private static func imageDataStart(_ bytes: [UInt8]) -> Int? {
        var offset = 8
        while offset + 8 <= bytes.count {
            if bytes[(offset + 4)..<(offset + 8)].elementsEqual("IDAT".utf8) { return offset }
            offset = offset.addingSaturating(bigEndian(bytes, at: offset)).addingSaturating(12)
        }
        return nil
    }

    private static func bigEndian(_ bytes: [UInt8], at offset: Int) -> Int {
        (0..<4).reduce(0) { $0 << 8 | Int(bytes[offset + $1]) }
    }

    /// Runs `body` with a libspng context reading `bytes` progressively, its limits
    /// set and the working memory checked.
    private static func withDecoder<T>(_ bytes: [UInt8], limits: DecodeLimits, fullImage: Bool,
                                       _ body: (inout PrefixDecoder) throws(LoaderError) -> T) throws(LoaderError) -> T {
        guard let context = spng_ctx_new(0) else { throw .noMemory }
        defer { spng_ctx_free(context) }
        return try bytes.withUnsafeBufferPointer { (buffer) throws(LoaderError) -> T in
            var filter = PNGChunkFilter(buffer, idatPieces: pieceBytes)
            return try withUnsafeMutablePointer(to: &filter) { (filter) throws(LoaderError) -> T in
                var decoder = PrefixDecoder(context: context, filter: filter)
                try decoder.start(limits: limits, fullImage: fullImage)
                return try body(&decoder)
            }
        }
    }
}

/// Adam7's passes (PNG specification, 8.2).
enum Adam7 {
    /// The block a pass's pixel stands for until later passes fill it: after pass
    /// n, the pixels known are the top-left ones of a grid of these blocks.
    static let block: [(width: Int, height: Int)] = [(8, 8), (4, 8), (4, 4), (2, 4), (2, 2), (1, 2), (1, 1)]
}

/// One libspng context decoding a start row by row.
private struct PrefixDecoder {
    let context: OpaquePointer
    let filter: UnsafeMutablePointer<PNGChunkFilter>
    private var header = spng_ihdr()
    private var opaque = false

    init(context: OpaquePointer, filter: UnsafeMutablePointer<PNGChunkFilter>) {
        self.context = context
        self.filter = filter
    }

    var bytesRead: Int { filter.pointee.position }

    /// Reads up to the image data, under `PNGDecoder`'s limits.
    mutating func start(limits: DecodeLimits, fullImage: Bool) throws(LoaderError) {
        try PNGDecoder.check(spng_set_png_stream(context, { _, user, destination, count in
            PNGChunkFilter.read(user, destination, count)
        }, filter))
        try PNGDecoder.setLimits(context, limits)
        try PNGDecoder.check(spng_get_ihdr(context, &header))
        let width = Int(header.width), height = Int(header.height)
        guard width * height <= limits.maxPixels else { throw .tooLarge }
        let working = PNGDecoder.workingBytes(width: width, height: height, interlaced: fullImage)
        guard limits.workingMemoryRefusal("interlaced PNG", needs: working) == nil else { throw .tooLarge }
        let code = spng_decode_image(context, nil, 0, Int32(SPNG_FMT_RGBA8.rawValue),
                                     Int32(SPNG_DECODE_TRNS.rawValue) | Int32(SPNG_DECODE_PROGRESSIVE.rawValue))
        // A start that ends before the image data holds no rows yet.
        guard code == 0 || filter.pointee.ranOut else { try PNGDecoder.check(code); return }
        opaque = code == 0 && PNGDecoder.isOpaque(context, header)
    }

    func builder(_ options: DecodeOptions) -> DecodedImageBuilder {
        let width = Int(header.width), height = Int(header.height)
        return DecodedImageBuilder(geometry: OutputGeometry(displayedWidth: width, height: height, orientation: .up,
                                                            options: options),
                                   format: options.format, sourceWidth: width, sourceHeight: height,
                                   isAnimated: false, opaque: opaque)
    }

    /// Decodes rows of passes 1 through `lastPass` into `row` (libspng's full-width
    /// row, where a pass writes only its own columns), calling `didDecode` with each
    /// row's pass (0-based) and row number, and `passDidEnd` with each pass done and
    /// how far into the file libspng had read. Stops quietly where the bytes end;
    /// throws on damage.
    func rows(into row: UnsafeMutableRawPointer, byteCount: Int, throughPass lastPass: Int,
              didDecode: (_ pass: Int, _ y: Int) -> Void,
              passDidEnd: (_ pass: Int, _ bytesRead: Int) -> Void) throws(LoaderError) {
        try rows(byteCount: byteCount, throughPass: lastPass, into: { _ in row }, didDecode: didDecode,
                 passDidEnd: passDidEnd)
    }

    /// As above, each row decoded into the full-width row `destination` gives for
    /// its row number: a full-size image's row, so the passes de-interlace in place.
    func rows(byteCount: Int, throughPass lastPass: Int,
              into destination: (_ y: Int) -> UnsafeMutableRawPointer,
              didDecode: (_ pass: Int, _ y: Int) -> Void,
              passDidEnd: (_ pass: Int, _ bytesRead: Int) -> Void) throws(LoaderError) {
        var info = spng_row_info()
        var pass = 0
        while true {
            let infoCode = spng_get_row_info(context, &info)
            if infoCode == Int32(SPNG_EOI.rawValue) { break }
            // No row info: the start ended before the image data.
            guard infoCode == 0 else {
                guard filter.pointee.ranOut else { throw .decode }
                return
            }
            // Empty passes are skipped: each one between counts as done.
            while pass < Int(info.pass) {
                passDidEnd(pass, bytesRead)
                pass += 1
            }
            guard pass < lastPass else { return }
            let code = spng_decode_row(context, destination(Int(info.row_num)), byteCount)
            guard code == 0 || code == Int32(SPNG_EOI.rawValue) else {
                guard filter.pointee.ranOut else { try PNGDecoder.check(code); return }
                return
            }
            didDecode(pass, Int(info.row_num))
        }
        while pass < min(lastPass, 7) {
            passDidEnd(pass, bytesRead)
            pass += 1
        }
    }
}
