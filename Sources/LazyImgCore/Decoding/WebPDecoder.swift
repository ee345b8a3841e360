import CWebP

/// Decodes WebP (lossy VP8, lossless VP8L, alpha, and the first frame of animations)
/// with libwebp.
///
/// The header is read with `WebPGetFeatures` before anything is allocated. Opaque still
/// images are decoded by libwebp's own scaler straight to the size the builder needs,
/// which skips most of the work for a thumbnail. Images with alpha are decoded at full
/// size instead: libwebp scales the colour channels without weighting them by alpha, so
/// the invisible colour under transparent pixels would bleed into the edges; the
/// resampler averages premultiplied colour and does not.
///
/// libwebp keeps no state between images, so the type holds nothing.
public struct WebPDecoder: ImageDecoding {
    public init() {}

    public func decode(_ data: [UInt8], options: DecodeOptions, limits: DecodeLimits) throws(LoaderError) -> DecodedImage {
        try data.withUnsafeBufferPointer { (bytes) throws(LoaderError) -> DecodedImage in
            guard let base = bytes.baseAddress, !bytes.isEmpty else { throw .decode }
            var features = WebPBitstreamFeatures()
            guard WebPGetFeatures(base, bytes.count, &features) == VP8_STATUS_OK else { throw .decode }
            let width = Int(features.width), height = Int(features.height)
            guard width > 0, height > 0 else { throw .decode }
            // VP8X canvases are at most 2^24 a side, so the product fits in Int.
            guard width * height <= limits.maxPixels else { throw .tooLarge }

            let geometry = OutputGeometry(displayedWidth: width, height: height, orientation: .up, options: options)
            if features.has_animation != 0 {
                return try decodeFirstFrame(bytes, width: width, height: height, geometry: geometry, format: options.format)
            }
            let scaled = features.has_alpha != 0 ? (width: width, height: height) : geometry.storedScaled
            let builder = DecodedImageBuilder(geometry: geometry, format: options.format, sourceWidth: width,
                                              sourceHeight: height, isAnimated: false)
            return try builder.build(decodedWidth: scaled.width, decodedHeight: scaled.height) {
                (destination, stride) throws(LoaderError) in
                var config = WebPDecoderConfig()
                guard WebPInitDecoderConfig(&config) != 0 else { throw .noMemory }
                if scaled.width != width || scaled.height != height {
                    config.options.use_scaling = 1
                    config.options.scaled_width = Int32(scaled.width)
                    config.options.scaled_height = Int32(scaled.height)
                }
                config.output.colorspace = MODE_RGBA
                config.output.is_external_memory = 1
                config.output.u.RGBA.rgba = destination.assumingMemoryBound(to: UInt8.self)
                config.output.u.RGBA.stride = Int32(stride)
                config.output.u.RGBA.size = stride * scaled.height
                let status = WebPDecode(base, bytes.count, &config)
                // External memory is never freed by libwebp; this releases nothing else.
                WebPFreeDecBuffer(&config.output)
                try Self.check(status)
            }
        }
    }

    /// Decodes frame 1 of an animation, composited on its canvas as a viewer shows it.
    /// WebPAnimDecoder decodes frames only as asked for, so the rest cost nothing but
    /// the demuxer's walk over the chunk headers.
    private func decodeFirstFrame(_ bytes: UnsafeBufferPointer<UInt8>, width: Int, height: Int,
                                  geometry: OutputGeometry, format: PixelFormat) throws(LoaderError) -> DecodedImage {
        var animationOptions = WebPAnimDecoderOptions()
        guard WebPAnimDecoderOptionsInit(&animationOptions) != 0 else { throw .noMemory }
        animationOptions.color_mode = MODE_RGBA
        animationOptions.use_threads = 0
        var webpData = WebPData(bytes: bytes.baseAddress, size: bytes.count)
        guard let decoder = WebPAnimDecoderNew(&webpData, &animationOptions) else { throw .decode }
        defer { WebPAnimDecoderDelete(decoder) }
        var info = WebPAnimInfo()
        guard WebPAnimDecoderGetInfo(decoder, &info) != 0,
              Int(info.canvas_width) == width, Int(info.canvas_height) == height
        else { throw .decode }

        var canvas: UnsafeMutablePointer<UInt8>?
        var timestamp: Int32 = 0
        guard WebPAnimDecoderGetNext(decoder, &canvas, &timestamp) != 0, let canvas else { throw .decode }
        let builder = DecodedImageBuilder(geometry: geometry, format: format, sourceWidth: width, sourceHeight: height,
                                          isAnimated: info.frame_count > 1)
        return try builder.build(decodedWidth: width, decodedHeight: height) { (destination, stride) throws(LoaderError) in
            // The canvas belongs to the animation decoder and dies with it.
            for y in 0..<height {
                (destination + y * stride).copyMemory(from: canvas + y * width * 4, byteCount: width * 4)
            }
        }
    }

    private static func check(_ status: VP8StatusCode) throws(LoaderError) {
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
