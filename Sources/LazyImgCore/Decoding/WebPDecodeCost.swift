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
    /// What the decode holds besides (a fill crop's scratch).
    private let otherBytes: Int

    init(_ features: WebPBitstreamFeatures, canvasWidth: Int? = nil, otherBytes: Int) {
        width = Int(features.width)
        height = Int(features.height)
        lossless = features.format == 2
        alpha = features.has_alpha != 0
        rowWidth = max(width, canvasWidth ?? 0)
        self.otherBytes = otherBytes
    }

    /// WebP sides are at most 2^14 (2^24 for a canvas), so the products below fit.
    private var pixels: Int { width * height }

    /// What libwebp itself holds.
    private var codecBytes: Int {
        if lossless { return 4 * pixels }
        return alpha ? 5 * pixels : 0
    }

    /// Row buffers (libwebp's macroblock rows and rescaler, the resampler's row of
    /// sums and the row being drawn), and the rest the decode holds.
    private var streamingBytes: Int { (160 * rowWidth).addingSaturating(otherBytes) }

    /// The full-size RGBA output, where one is needed.
    private var fullSizeBytes: Int { 4 * pixels }

    /// A still bitstream (or a frame covering its canvas): scaled by libwebp unless it
    /// is lossy with alpha and its full-size decode fits; refused when not even
    /// libwebp's own memory fits.
    func plan(_ limits: DecodeLimits) -> Result<Plan, Refusal> {
        let scaledBytes = codecBytes.addingSaturating(streamingBytes)
        if let refusal = refusal(needing: scaledBytes, limits) { return .failure(refusal) }
        // Over the limit a lossy image with alpha is still decoded, by libwebp's
        // scaler: its edges may take some colour from under transparent pixels.
        if alpha && !lossless && scaledBytes.addingSaturating(fullSizeBytes) <= limits.maxWorkingBytes {
            return .success(.fullSize)
        }
        return .success(.scaledByLibwebp)
    }

    /// A frame drawn onto a larger canvas: decoded at its own full size.
    func planDrawingOnCanvas(_ limits: DecodeLimits) -> Result<Plan, Refusal> {
        let bytes = codecBytes.addingSaturating(streamingBytes).addingSaturating(fullSizeBytes)
        if let refusal = refusal(needing: bytes, limits) { return .failure(refusal) }
        return .success(.fullSize)
    }

    private func refusal(needing bytes: Int, _ limits: DecodeLimits) -> Refusal? {
        let kind = lossless ? "lossless WebP" : alpha ? "WebP with alpha" : "WebP"
        return limits.workingMemoryRefusal("\(kind) of \(width)x\(height)", needs: bytes).map(Refusal.init)
    }
}
