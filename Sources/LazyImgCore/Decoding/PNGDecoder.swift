import CSpng

/// Decodes PNG (every colour type, bit depth and interlacing) with libspng.
///
/// libspng expands everything to RGBA8, applying tRNS and reducing 16-bit samples to
/// 8, so the resampler sees one pixel format. A libspng context holds one image's
/// state, so each decode makes and frees its own. It reads the file through
/// `PNGChunkFilter`, which leaves out the ancillary chunks the pixels do not need.
public final class PNGDecoder: ImageDecoding {
    /// What libspng may keep of the chunks it still sees (PLTE and tRNS are under 1 KiB
    /// each; the rest are filtered out).
    private static let maxChunkBytes = 4 << 20
    private static let maxCachedChunkBytes = 16 << 20

    public private(set) var lastFailureReason = ""

    public init() {}

    public func decode(_ data: [UInt8], options: DecodeOptions, limits: DecodeLimits) throws(LoaderError) -> DecodedImage {
        lastFailureReason = ""
        guard let context = spng_ctx_new(0) else { throw .noMemory }
        defer { spng_ctx_free(context) }

        return try data.withUnsafeBufferPointer { (bytes) throws(LoaderError) -> DecodedImage in
            guard !bytes.isEmpty else { throw .decode }
            var filter = PNGChunkFilter(bytes)
            return try withUnsafeMutablePointer(to: &filter) { (filter) throws(LoaderError) -> DecodedImage in
                try Self.check(spng_set_png_stream(context, { _, user, destination, count in
                    PNGChunkFilter.read(user, destination, count)
                }, filter))
                let image = try decode(context, options: options, limits: limits)
                // A bad CRC in a chunk left out: the image is whole, the file damaged.
                image.isDamaged = filter.pointee.damagedChunks > 0
                return image
            }
        }
    }

    private func decode(_ context: OpaquePointer, options: DecodeOptions,
                        limits: DecodeLimits) throws(LoaderError) -> DecodedImage {
        try Self.setLimits(context, limits)
        var header = spng_ihdr()
        try Self.check(spng_get_ihdr(context, &header))
        let sourceWidth = Int(header.width), sourceHeight = Int(header.height)
        guard sourceWidth > 0, sourceHeight > 0 else { throw .decode }
        // Both sides are below 2^31 (libspng checks), so the product fits in Int.
        guard sourceWidth * sourceHeight <= limits.maxPixels else { throw .tooLarge }
        let interlaced = header.interlace_method != 0
        let format = Int32(SPNG_FMT_RGBA8.rawValue)
        var byteCount = 0
        try Self.check(spng_decoded_image_size(context, format, &byteCount))
        guard case (let expected, false) = (sourceWidth * sourceHeight).multipliedReportingOverflow(by: 4),
              byteCount == expected
        else { throw .decode }

        let geometry = OutputGeometry(displayedWidth: sourceWidth, height: sourceHeight, orientation: .up,
                                      options: options)
        let builder = DecodedImageBuilder(geometry: geometry, format: options.format, sourceWidth: sourceWidth,
                                          sourceHeight: sourceHeight, isAnimated: false,
                                          opaque: Self.isOpaque(context, header))
        let working = Self.workingBytes(width: sourceWidth, height: sourceHeight, interlaced: interlaced)
            .addingSaturating(builder.cropScratchBytes())
        if let refusal = limits.workingMemoryRefusal("\(interlaced ? "interlaced " : "")PNG of \(sourceWidth)x\(sourceHeight)",
                                                     needs: working) {
            lastFailureReason = refusal
            throw .tooLarge
        }
        let flags = Int32(SPNG_DECODE_TRNS.rawValue)
        guard interlaced else {
            return try builder.buildByRows(decodedWidth: sourceWidth, decodedHeight: sourceHeight) {
                (addRow) throws(LoaderError) in
                try decodeRows(context, width: sourceWidth, format: format, flags: flags, into: addRow)
            }
        }
        return try builder.build(decodedWidth: sourceWidth, decodedHeight: sourceHeight) {
            (destination, stride) throws(LoaderError) in
            // libspng writes rows back to back, which the builder's buffers are.
            guard stride == sourceWidth * 4 else { throw .decode }
            try Self.check(spng_decode_image(context, destination, byteCount, format, flags))
            try checkTrailingChunks(context)
        }
    }

    /// The limits every libspng context here decodes under.
    static func setLimits(_ context: OpaquePointer, _ limits: DecodeLimits) throws(LoaderError) {
        // A side longer than the pixel budget can never pass the pixel check.
        let maxSide = UInt32(clamping: max(1, min(limits.maxPixels, Int(Int32.max))))
        try check(spng_set_image_limits(context, maxSide, maxSide))
        try Self.check(spng_set_chunk_limits(context, maxChunkBytes, maxCachedChunkBytes))
        // A corrupt file should fail, not decode into plausible-looking noise.
        try Self.check(spng_set_crc_action(context, Int32(SPNG_CRC_ERROR.rawValue), Int32(SPNG_CRC_ERROR.rawValue)))
    }

    /// What a decode holds besides its result. Rows: libspng's current and previous
    /// scanline (up to 8 bytes a pixel each, 16-bit RGBA) and its RGBA8 row, this
    /// decoder's row, and the resampler's row of sums (16 bytes a pixel) and column
    /// weights. Interlaced (Adam7) rows arrive in seven passes, each filling part of
    /// every row, so those images are decoded whole before shrinking: 4 bytes a pixel
    /// more (a 16 Mpx image within the default 64 MiB).
    static func workingBytes(width: Int, height: Int, interlaced: Bool) -> Int {
        let rows = width.multipliedSaturating(by: 48)
        return interlaced ? rows.addingSaturating(width.multipliedSaturating(by: height).multipliedSaturating(by: 4)) : rows
    }

    /// Decodes a non-interlaced image one row at a time into a single row buffer
    /// (libspng's progressive mode), passing each row on as it is made.
    private func decodeRows(_ context: OpaquePointer, width: Int, format: Int32, flags: Int32,
                            into addRow: (UnsafeRawPointer) -> Void) throws(LoaderError) {
        try Self.check(spng_decode_image(context, nil, 0, format, flags | Int32(SPNG_DECODE_PROGRESSIVE.rawValue)))
        let rowBytes = width * 4
        let row = UnsafeMutableRawPointer.allocate(byteCount: rowBytes, alignment: 16)
        defer { row.deallocate() }
        while true {
            // The last row comes with SPNG_EOI rather than 0.
            let code = spng_decode_row(context, row, rowBytes)
            guard code == 0 || code == Int32(SPNG_EOI.rawValue) else { try Self.check(code); return }
            addRow(row)
            if code != 0 { break }
        }
        try checkTrailingChunks(context)
    }

    /// Whether every decoded alpha is 255: no alpha channel and no tRNS chunk (which
    /// comes before the image data; libspng reads up to the first IDAT to answer).
    static func isOpaque(_ context: OpaquePointer, _ header: spng_ihdr) -> Bool {
        let colorType = Int32(header.color_type)
        guard colorType == Int32(SPNG_COLOR_TYPE_GRAYSCALE.rawValue)
                || colorType == Int32(SPNG_COLOR_TYPE_TRUECOLOR.rawValue)
                || colorType == Int32(SPNG_COLOR_TYPE_INDEXED.rawValue)
        else { return false }
        var transparency = spng_trns()
        return spng_get_trns(context, &transparency) != 0
    }

    /// libspng returns as soon as the zlib stream ends, before it has read the last
    /// IDAT's CRC or anything after it; reading on to IEND makes a bad CRC or a cut-off
    /// file an error, as PngSuite's xcsn0g01 expects.
    private func checkTrailingChunks(_ context: OpaquePointer) throws(LoaderError) {
        try Self.check(spng_decode_chunks(context))
    }

    /// Maps a libspng return code to the loader's errors.
    static func check(_ code: Int32) throws(LoaderError) {
        switch code {
        case 0:
            return
        case Int32(SPNG_EMEM.rawValue):
            throw .noMemory
        case Int32(SPNG_EUSER_WIDTH.rawValue), Int32(SPNG_EUSER_HEIGHT.rawValue):
            throw .tooLarge
        default:
            throw .decode
        }
    }
}
