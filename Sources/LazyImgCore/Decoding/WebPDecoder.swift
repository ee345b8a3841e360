import CWebP

/// Decodes WebP (lossy VP8, lossless VP8L, alpha, and the first frame of animations)
/// with libwebp.
///
/// The header is read with `WebPGetFeatures` before anything is allocated. libwebp's
/// own scaler shrinks while it decodes, straight to the size the builder needs, which
/// skips most of the work for a thumbnail and holds no full-size output. The one
/// exception is lossy WebP with alpha: libwebp scales its colour without weighting it
/// by alpha (the lossless path does weight it), so the invisible colour under
/// transparent pixels would bleed into the edges; those are decoded at full size and
/// shrunk by the resampler, which averages premultiplied colour, while that buffer
/// fits the working-memory limit (`WebPDecodeCost`).
///
/// Animations: frame 1 is found by walking the RIFF chunks (`WebPFirstFrame`) and
/// decoded by itself, never through WebPAnimDecoder's full canvases; a frame that does
/// not cover the canvas is drawn onto transparent canvas rows as they stream into the
/// resampler.
public final class WebPDecoder: ImageDecoding {
    public private(set) var lastFailureReason = ""

    public init() {}

    public func decode(_ data: [UInt8], options: DecodeOptions, limits: DecodeLimits) throws(LoaderError) -> DecodedImage {
        lastFailureReason = ""
        return try data.withUnsafeBufferPointer { (bytes) throws(LoaderError) -> DecodedImage in
            guard !bytes.isEmpty else { throw .decode }
            let file = try Self.features(of: bytes)
            let width = Int(file.width), height = Int(file.height)
            // VP8X canvases are at most 2^24 a side, so the product fits in Int.
            guard width * height <= limits.maxPixels else { throw .tooLarge }
            let geometry = OutputGeometry(displayedWidth: width, height: height, orientation: .up, options: options)
            guard file.has_animation != 0 else {
                let builder = DecodedImageBuilder(geometry: geometry, format: options.format, sourceWidth: width,
                                                  sourceHeight: height, isAnimated: false, opaque: file.has_alpha == 0)
                return try decodeBitstream(bytes, file, builder: builder, limits: limits)
            }
            guard let frame = WebPFirstFrame(in: bytes),
                  frame.left + frame.width <= width, frame.top + frame.height <= height
            else { throw .decode }
            guard frame.width * frame.height <= limits.maxPixels else { throw .tooLarge }
            let features = try Self.features(of: frame.bitstream)
            guard Int(features.width) == frame.width, Int(features.height) == frame.height else { throw .decode }
            let builder = DecodedImageBuilder(geometry: geometry, format: options.format, sourceWidth: width,
                                              sourceHeight: height, isAnimated: frame.anotherFrameFollows)
            if frame.width == width && frame.height == height {
                return try decodeBitstream(frame.bitstream, features, builder: builder, limits: limits)
            }
            return try drawOnCanvas(frame, features, canvasWidth: width, canvasHeight: height, builder: builder,
                                    limits: limits)
        }
    }

    /// One still bitstream (a file, or an animation frame covering its canvas) into the
    /// builder's geometry.
    private func decodeBitstream(_ input: UnsafeBufferPointer<UInt8>, _ features: WebPBitstreamFeatures,
                                 builder: DecodedImageBuilder, limits: DecodeLimits) throws(LoaderError) -> DecodedImage {
        let cost = WebPDecodeCost(features, otherBytes: builder.cropScratchBytes())
        let fullSize = (width: cost.width, height: cost.height)
        let scaled: (width: Int, height: Int)
        switch try check(cost.plan(limits)) {
        case .fullSize: scaled = fullSize
        case .scaledByLibwebp: scaled = builder.geometry.storedScaled
        }
        return try builder.build(decodedWidth: scaled.width, decodedHeight: scaled.height) {
            (destination, stride) throws(LoaderError) in
            try Self.decodeRGBA(input, fullSize: fullSize, scaled: scaled, into: destination, stride: stride)
        }
    }

    /// A frame smaller than its canvas: decoded at its own size, then each canvas row is
    /// made (transparent, with the frame's row at its offset where it has one) and
    /// handed to the resampler, so the canvas never exists at full size.
    private func drawOnCanvas(_ frame: WebPFirstFrame, _ features: WebPBitstreamFeatures, canvasWidth: Int,
                              canvasHeight: Int, builder: DecodedImageBuilder,
                              limits: DecodeLimits) throws(LoaderError) -> DecodedImage {
        let cost = WebPDecodeCost(features, canvasWidth: canvasWidth, otherBytes: builder.cropScratchBytes())
        try check(cost.planDrawingOnCanvas(limits))
        guard let decoded = DecodedImage(width: frame.width, height: frame.height, sourceWidth: frame.width,
                                         sourceHeight: frame.height)
        else { throw .tooLarge }  // DecodedImage refuses only absurd sizes
        try Self.decodeRGBA(frame.bitstream, fullSize: (frame.width, frame.height), scaled: (frame.width, frame.height),
                            into: decoded.pixels, stride: decoded.stride)
        let frameColumns = frame.left..<(frame.left + frame.width)
        return try builder.buildByRows(decodedWidth: canvasWidth, decodedHeight: canvasHeight) {
            (addRow: (UnsafeRawPointer, Range<Int>) -> Void) in
            let row = UnsafeMutableRawPointer.allocate(byteCount: canvasWidth * 4, alignment: 16)
            defer { row.deallocate() }
            row.initializeMemory(as: UInt8.self, repeating: 0, count: canvasWidth * 4)
            for y in 0..<canvasHeight {
                let frameRow = y - frame.top
                guard frameRow >= 0 && frameRow < frame.height else {
                    addRow(row, 0..<0)
                    continue
                }
                (row + frame.left * 4).copyMemory(from: decoded.pixels + frameRow * decoded.stride, byteCount: frame.width * 4)
                addRow(row, frameColumns)
                (row + frame.left * 4).initializeMemory(as: UInt8.self, repeating: 0, count: frame.width * 4)
            }
        }
    }

    /// Records a refusal's reason; returns the plan otherwise.
    @discardableResult
    private func check(_ plan: Result<WebPDecodeCost.Plan, WebPDecodeCost.Refusal>) throws(LoaderError) -> WebPDecodeCost.Plan {
        switch plan {
        case .success(let plan):
            return plan
        case .failure(let refusal):
            lastFailureReason = refusal.reason
            throw .tooLarge
        }
    }

    static func features(of bytes: UnsafeBufferPointer<UInt8>) throws(LoaderError) -> WebPBitstreamFeatures {
        var features = WebPBitstreamFeatures()
        guard let base = bytes.baseAddress, WebPGetFeatures(base, bytes.count, &features) == VP8_STATUS_OK,
              features.width > 0, features.height > 0
        else { throw .decode }
        return features
    }

    /// Decodes `input` as straight RGBA into `destination`, scaled by libwebp when
    /// `scaled` differs from `fullSize`. The rows may lie inside a wider image (an
    /// animation's canvas): only `4 * width` bytes of each are written.
    static func decodeRGBA(_ input: UnsafeBufferPointer<UInt8>, fullSize: (width: Int, height: Int),
                                   scaled: (width: Int, height: Int), into destination: UnsafeMutableRawPointer,
                                   stride: Int) throws(LoaderError) {
        guard let base = input.baseAddress else { throw .decode }
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else { throw .noMemory }
        if scaled != fullSize {
            config.options.use_scaling = 1
            config.options.scaled_width = Int32(scaled.width)
            config.options.scaled_height = Int32(scaled.height)
        }
        config.output.colorspace = MODE_RGBA
        config.output.is_external_memory = 1
        config.output.u.RGBA.rgba = destination.assumingMemoryBound(to: UInt8.self)
        config.output.u.RGBA.stride = Int32(stride)
        config.output.u.RGBA.size = stride * (scaled.height - 1) + 4 * scaled.width
        let status = WebPDecode(base, input.count, &config)
        // External memory is never freed by libwebp; this releases nothing else.
        WebPFreeDecBuffer(&config.output)
        switch status {
        case VP8_STATUS_OK:
            return
        case VP8_STATUS_OUT_OF_MEMORY:
            throw .noMemory
        default:
            throw .decode
        }
    }
}
