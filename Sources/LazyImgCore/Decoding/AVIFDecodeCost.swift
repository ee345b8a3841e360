/// What decoding an AVIF holds at its peak, from what libavif's parse and the items
/// say before anything is decoded: so that a file needing more than
/// `DecodeLimits.maxWorkingBytes` is refused with nothing allocated.
///
/// libavif 0.11 keeps an AV1 decoder (dav1d 1.0, one thread) for every coded image it
/// decodes, the colour's and the alpha's, each holding its frame (planes padded to
/// 128 rows and columns, 16-bit words past 8 bits) and its per-frame state
/// (`frameStateBytesPerPixel`). A grid's cells are all decoded, each by its own
/// decoder, before libavif copies them into planes of the whole canvas (one more
/// copy). The RGBA rows then stream to the resampler (`AVIFDecoder.bandRows`). The
/// constants come from measuring libavif 0.11 with dav1d 1.0 (`make peak-memory`,
/// `DecodingAVIFHEICMemoryTests`).
///
/// dav1d is told to refuse frames of more pixels than the item they belong to, so none
/// is larger than counted here. (A crafted file whose frame has another shape than its
/// `ispe` makes libavif rescale it into a second frame, beyond this count.)
struct AVIFDecodeCost {
    /// A coded image: one item, or a grid's cells.
    struct Coded {
        var cells: Int
        var cellWidth: Int
        var cellHeight: Int
        /// The grid's canvas, which libavif allocates; nil for one item.
        var canvas: (width: Int, height: Int)?
    }

    /// dav1d's state per pixel of a frame besides its planes (loop-filter masks, CDEF
    /// and restoration lines, motion vectors, segmentation).
    static let frameStateBytesPerPixel = 1.0
    /// A dav1d decoder with nothing decoded, and libavif's codec around it.
    static let decoderBytes = 448 << 10
    /// libavif's decoder and the tables its conversion to RGB builds; malloc extends
    /// its heap 128 KiB past each request that needs more (M_TOP_PAD).
    static let fixedBytes = 512 << 10
    /// The rows the decode streams, per pixel of width: libavif's band of RGBA rows
    /// (`AVIFDecoder.bandRows` and their context), the resampler's sums.
    static let rowBytesPerPixel = 4 * 36 + 32

    let bytes: Int
    /// "AVIF of 8000x6000, 10-bit 4:4:4 with alpha", for the refusal.
    let description: String
    /// The most pixels any one frame may have: dav1d's limit.
    let largestFramePixels: Int

    /// `chromaFormat` as HEVC numbers it: 0 monochrome, 1 4:2:0, 2 4:2:2, 3 4:4:4.
    init(width: Int, height: Int, depth: Int, chromaFormat: Int, colour: Coded, alpha: Coded?) {
        let wide = depth > 8
        var total = Self.heldBytes(colour, chromaFormat: chromaFormat, wide: wide)
        if let alpha {
            total = total.addingSaturating(Self.heldBytes(alpha, chromaFormat: 0, wide: wide))
        }
        bytes = total.addingSaturating(width.multipliedSaturating(by: Self.rowBytesPerPixel))
            .addingSaturating(Self.fixedBytes)
        largestFramePixels = max(colour.cellWidth.multipliedSaturating(by: colour.cellHeight),
                                 alpha.map { $0.cellWidth.multipliedSaturating(by: $0.cellHeight) } ?? 0)
        let kind = colour.cells > 1 ? "AVIF grid of \(colour.cells) cells" : "AVIF"
        description = "\(kind) of \(width)x\(height), \(depth)-bit \(["4:0:0", "4:2:0", "4:2:2", "4:4:4"][chromaFormat])"
            + (alpha != nil ? " with alpha" : "")
    }

    /// Every cell's decoder and frame, and the canvas they are copied into.
    private static func heldBytes(_ coded: Coded, chromaFormat: Int, wide: Bool) -> Int {
        let pixels = coded.cellWidth.multipliedSaturating(by: coded.cellHeight)
        let cell = frameBytes(width: coded.cellWidth, height: coded.cellHeight, chromaFormat: chromaFormat, wide: wide)
            .addingSaturating(Int((Double(pixels) * frameStateBytesPerPixel).rounded(.up)))
            .addingSaturating(decoderBytes)
        let canvas = coded.canvas.map { planeBytes(width: $0.width, height: $0.height, chromaFormat: chromaFormat, wide: wide) }
        return cell.multipliedSaturating(by: coded.cells).addingSaturating(canvas ?? 0)
    }

    /// dav1d's picture: each side padded to 128, rows of 16-bit words past 8 bits.
    private static func frameBytes(width: Int, height: Int, chromaFormat: Int, wide: Bool) -> Int {
        let padded = { (side: Int) in side.addingSaturating(127) / 128 * 128 }
        return planeBytes(width: padded(width), height: padded(height), chromaFormat: chromaFormat, wide: wide)
    }

    /// Planes of luma and chroma at `width` x `height`.
    private static func planeBytes(width: Int, height: Int, chromaFormat: Int, wide: Bool) -> Int {
        let sample = wide ? 2 : 1
        let luma = width.multipliedSaturating(by: height).multipliedSaturating(by: sample)
        guard chromaFormat > 0 else { return luma }
        let shift = HEVCSequenceParameters.chromaShift(chromaFormat)
        let chroma = ((width + shift.x) >> shift.x).multipliedSaturating(by: (height + shift.y) >> shift.y)
            .multipliedSaturating(by: sample)
        return luma.addingSaturating(chroma.multipliedSaturating(by: 2))
    }
}
