/// What decoding a HEIC holds at its peak, from the SPS of every coded picture it
/// will decode, before any is: so that a file needing more than
/// `DecodeLimits.maxWorkingBytes` is refused with nothing allocated.
///
/// Per coded picture libde265 (decoding on the calling thread, `HEVCPicture`) holds its
/// planes at the coded size, in bytes or 16-bit words, and tables for the picture:
/// prediction modes, motion, transform and deblocking flags of each 4 x 4 block, and
/// per coding tree block its SAO parameters and a lock (a byte a pixel with 16 x 16
/// trees, a sixteenth with 64 x 64 ones); while it applies SAO, a copy of its largest
/// plane; besides, the coded bytes it copied in, a header per slice segment, and the
/// decoder itself. A grid holds the pictures of one row of tiles; alpha, decoded
/// first, an 8-bit plane while the colour is decoded. The constants come from
/// libde265 1.0.11's structures and measuring it (`make peak-memory`,
/// `DecodingAVIFHEICMemoryTests`).
struct HEICDecodeCost {
    /// What libde265 keeps of each 4 x 4 block of a picture (motion 12, prediction
    /// modes 2, transform and deblocking flags 1 each, a share of its coding block's).
    static let blockBytes = 17
    /// And of each coding tree block (its SAO parameters and flags, a progress lock).
    static let codingTreeBlockBytes = 256
    /// A libde265 decoder with nothing decoded yet, and its slice and thread contexts.
    static let decoderBytes = 128 << 10
    /// What libde265 keeps of each slice segment (its header, the unit it came in).
    static let sliceSegmentBytes = 4 << 10
    /// What any decode adds: malloc extends its heap 128 KiB past each request that
    /// needs more (M_TOP_PAD), and libde265 its tables.
    static let fixedBytes = 256 << 10
    /// The rows the decode streams, per pixel of the shown width: the RGBA row here,
    /// the resampler's sums.
    static let rowBytesPerPixel = 32

    let bytes: Int
    /// "HEIC of 8000x6000, 10-bit 4:4:4 with alpha", for the refusal.
    let description: String

    init(_ image: HEICImage) {
        let colour = Self.peak(of: image.colour)
        var total = colour
        if let alpha = image.alpha {
            // Decoded before the colour, and kept as 8 bits a pixel of what is shown.
            let plane = image.crop.width.multipliedSaturating(by: image.crop.height)
            total = max(Self.peak(of: alpha), plane.addingSaturating(colour))
        }
        bytes = total.addingSaturating(image.crop.width.multipliedSaturating(by: Self.rowBytesPerPixel))
            .addingSaturating(Self.fixedBytes)

        let canvas = image.colour
        let sequence = canvas.tiles.dropFirst().reduce(canvas.tiles[0].largestSequence) { $0.covering($1.largestSequence) }
        let chroma = ["4:0:0", "4:2:0", "4:2:2", "4:4:4"][sequence.chromaFormat]
        let kind = canvas.tiles.count > 1 ? "HEIC grid of \(canvas.columns)x\(canvas.rows) tiles" : "HEIC"
        let depth = max(sequence.bitDepthLuma, sequence.bitDepthChroma)
        description = "\(kind) of \(canvas.width)x\(canvas.height), \(depth)-bit \(chroma)"
            + (image.alpha != nil ? " with alpha" : "")
    }

    /// The most a canvas's decode holds: the pictures of its costliest row of tiles,
    /// and the SAO copy of the last one decoded.
    private static func peak(of canvas: HEICImage.Canvas) -> Int {
        var peak = 0
        for row in 0..<canvas.rows {
            let tiles = canvas.tiles[row * canvas.columns..<(row + 1) * canvas.columns]
            let held = tiles.reduce(0) { $0.addingSaturating(heldBytes($1)) }
            let copy = tiles.map { planeBytes($0.largestSequence).largest }.max() ?? 0
            peak = max(peak, held.addingSaturating(copy))
        }
        return peak
    }

    /// What libde265 keeps of one decoded picture until it is freed.
    private static func heldBytes(_ item: HEVCCodedItem) -> Int {
        let sequence = item.largestSequence
        let blocks = { (log2Size: Int) in
            ((sequence.codedWidth + (1 << log2Size) - 1) >> log2Size)
                .multipliedSaturating(by: (sequence.codedHeight + (1 << log2Size) - 1) >> log2Size)
        }
        return planeBytes(sequence).all
            .addingSaturating(blocks(2).multipliedSaturating(by: blockBytes))
            .addingSaturating(blocks(sequence.log2CodingTreeSize).multipliedSaturating(by: codingTreeBlockBytes))
            .addingSaturating(item.codedBytes)
            .addingSaturating(item.sliceSegments.multipliedSaturating(by: sliceSegmentBytes))
            .addingSaturating(decoderBytes)
    }

    /// libde265's planes: rows padded to 16 samples, 16-bit words past 8 bits.
    private static func planeBytes(_ sequence: HEVCSequenceParameters) -> (all: Int, largest: Int) {
        let padded = { (width: Int) in (width + 15) / 16 * 16 }
        let luma = padded(sequence.codedWidth).multipliedSaturating(by: sequence.codedHeight)
            .multipliedSaturating(by: sequence.bitDepthLuma > 8 ? 2 : 1)
        guard sequence.chromaFormat > 0 else { return (luma, luma) }
        let shift = HEVCSequenceParameters.chromaShift(sequence.chromaFormat)
        let chroma = padded((sequence.codedWidth + shift.x) >> shift.x)
            .multipliedSaturating(by: (sequence.codedHeight + shift.y) >> shift.y)
            .multipliedSaturating(by: sequence.bitDepthChroma > 8 ? 2 : 1)
        return (luma.addingSaturating(chroma.multipliedSaturating(by: 2)), max(luma, chroma))
    }
}
