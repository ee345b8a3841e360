import CWebP

/// What decoding one WebP bitstream holds, from its features, and so how to decode it
/// within `DecodeLimits.maxWorkingBytes`.
///
/// From libwebp 1.2's decoders: lossless (VP8L) keeps the whole image as 32-bit
/// pixels while it decodes (back-references reach any earlier pixel), whatever the
/// output size; lossy (VP8) keeps a few rows of macroblocks, plus for alpha the whole
/// alpha plane (a byte a pixel) and, when that plane is itself lossless-coded,
/// possibly 32-bit pixels for it too. Everything else grows with the width only.
struct WebPDecodeCost {
    enum Plan: Equatable {
        /// libwebp shrinks while decoding: only its own working memory.
        case scaledByLibwebp
        /// Decoded at full size, then shrunk by the resampler.
        case fullSize
    }

    struct Refusal: Error {
        let reason: String
    }

    let width: Int
    let height: Int
    private let lossless: Bool
    private let alpha: Bool
    /// The widest row the decode streams (the canvas's, for a frame drawn on one).
    private let rowWidth: Int

    init(_ features: WebPBitstreamFeatures, canvasWidth: Int? = nil) {
        width = Int(features.width)
        height = Int(features.height)
        lossless = features.format == 2
        alpha = features.has_alpha != 0
        rowWidth = max(width, canvasWidth ?? 0)
    }

    /// WebP sides are at most 2^14 (2^24 for a canvas), so the products below fit.
    private var pixels: Int { width * height }

    /// What libwebp itself holds.
    private var codecBytes: Int {
        if lossless { return 4 * pixels }
        return alpha ? 5 * pixels : 0
    }

    /// Row buffers: libwebp's macroblock rows and rescaler, the resampler's row of
    /// sums and the row being drawn.
    private var rowBytes: Int { 160 * rowWidth }

    /// The full-size RGBA output, where one is needed.
    private var fullSizeBytes: Int { 4 * pixels }

    /// A still bitstream (or a frame covering its canvas): scaled by libwebp unless it
    /// is lossy with alpha and its full-size decode fits; refused when not even
    /// libwebp's own memory fits.
    func plan(maxWorkingBytes: Int) -> Result<Plan, Refusal> {
        let scaledBytes = codecBytes + rowBytes
        guard scaledBytes <= maxWorkingBytes else { return .failure(refusal(needing: scaledBytes, maxWorkingBytes)) }
        // Over the limit a lossy image with alpha is still decoded, by libwebp's
        // scaler: its edges may take some colour from under transparent pixels.
        if alpha && !lossless && scaledBytes + fullSizeBytes <= maxWorkingBytes { return .success(.fullSize) }
        return .success(.scaledByLibwebp)
    }

    /// A frame drawn onto a larger canvas: decoded at its own full size.
    func planDrawingOnCanvas(maxWorkingBytes: Int) -> Result<Plan, Refusal> {
        let bytes = codecBytes + rowBytes + fullSizeBytes
        guard bytes <= maxWorkingBytes else { return .failure(refusal(needing: bytes, maxWorkingBytes)) }
        return .success(.fullSize)
    }

    private func refusal(needing bytes: Int, _ maxWorkingBytes: Int) -> Refusal {
        let kind = lossless ? "lossless WebP" : alpha ? "WebP with alpha" : "WebP"
        return Refusal(reason: "\(kind) of \(width)x\(height): needs \(ByteCount(bytes)) to decode, "
                       + "over the \(ByteCount(maxWorkingBytes)) a decode may hold")
    }
}
