#if LAZYIMG_HEIF
import CHeif

/// How a generated HEIC is stored.
public struct HEICTestOptions: Sendable {
    /// 8, 10 or 12 bits per sample.
    public var depth = 8
    /// 4:4:4 keeps solid colours and sharp edges close; "420" as cameras write.
    public var chroma = "444"
    public var quality = 90
    /// An EXIF orientation (1-8) that libheif writes as irot/imir.
    public var orientation = 1
    /// An Exif payload (TIFF header first), stored as the file's Exif item.
    public var exif: [UInt8]? = nil
    /// The `nclx` written (H.273 matrix coefficients and range); nil: libheif's default,
    /// BT.601 full range.
    public var colour: (matrix: Int, fullRange: Bool)? = nil
    /// More x265 options ("ctu": "16"); SAO is always on, as phones write it.
    public var x265: [String: String] = [:]

    public init(depth: Int = 8, chroma: String = "444", quality: Int = 90, orientation: Int = 1,
                exif: [UInt8]? = nil, colour: (matrix: Int, fullRange: Bool)? = nil, x265: [String: String] = [:]) {
        self.depth = depth
        self.chroma = chroma
        self.quality = quality
        self.orientation = orientation
        self.exif = exif
        self.colour = colour
        self.x265 = x265
    }
}

/// Whether libheif can write HEVC here (Debian's libheif is built with x265).
public var canEncodeHEIC: Bool { heif_have_encoder_for_format(heif_compression_HEVC) != 0 }

/// A HEIC of the pattern, encoded by libheif with x265 (alpha as its auxiliary image
/// when the pattern has any below 255). Returns [] when libheif refuses.
public func makeHEIC(width: Int, height: Int, pattern: TestPattern = .gradient,
                     options: HEICTestOptions = HEICTestOptions()) -> [UInt8] {
    guard let context = heif_context_alloc() else { return [] }
    defer { heif_context_free(context) }
    var encoder: OpaquePointer?
    guard heif_context_get_encoder_for_format(context, heif_compression_HEVC, &encoder).code == heif_error_Ok,
          let encoder
    else { return [] }
    defer { heif_encoder_release(encoder) }
    _ = heif_encoder_set_logging_level(encoder, 0)
    _ = heif_encoder_set_lossy_quality(encoder, Int32(options.quality))
    _ = heif_encoder_set_parameter(encoder, "preset", "ultrafast")
    _ = heif_encoder_set_parameter(encoder, "chroma", options.chroma)
    for (name, value) in ["sao": "1"].merging(options.x265, uniquingKeysWith: { $1 }) {
        guard heif_encoder_set_parameter(encoder, "x265:" + name, value).code == heif_error_Ok else { return [] }
    }

    guard let image = makeHEIFImage(width: width, height: height, pattern: pattern, depth: options.depth) else {
        return []
    }
    defer { heif_image_release(image) }
    guard let encoding = heif_encoding_options_alloc() else { return [] }
    defer { heif_encoding_options_free(encoding) }
    encoding.pointee.image_orientation = heif_orientation(rawValue: UInt32(options.orientation))
    guard let nclx = heif_nclx_color_profile_alloc() else { return [] }
    defer { heif_nclx_color_profile_free(nclx) }
    if let colour = options.colour {
        nclx.pointee.matrix_coefficients = heif_matrix_coefficients(rawValue: UInt32(colour.matrix))
        nclx.pointee.full_range_flag = colour.fullRange ? 1 : 0
        encoding.pointee.output_nclx_profile = nclx
    }
    var handle: OpaquePointer?
    guard heif_context_encode_image(context, image, encoder, encoding, &handle).code == heif_error_Ok, let handle else {
        return []
    }
    defer { heif_image_handle_release(handle) }
    if let exif = options.exif {
        guard heif_context_add_exif_metadata(context, handle, exif, Int32(exif.count)).code == heif_error_Ok else {
            return []
        }
    }
    return writeHEIF(context)
}

/// RGB(A) interleaved, 8 bits, or 16-bit little-endian words holding `depth` bits.
private func makeHEIFImage(width: Int, height: Int, pattern: TestPattern, depth: Int) -> OpaquePointer? {
    let rgba = makeRGBA(width: width, height: height, pattern: pattern)
    let hasAlpha = stride(from: 3, to: rgba.count, by: 4).contains { rgba[$0] != 255 }
    let channels = hasAlpha ? 4 : 3
    let chroma = depth == 8 ? (hasAlpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB)
        : (hasAlpha ? heif_chroma_interleaved_RRGGBBAA_LE : heif_chroma_interleaved_RRGGBB_LE)
    var image: OpaquePointer?
    guard heif_image_create(Int32(width), Int32(height), heif_colorspace_RGB, chroma, &image).code == heif_error_Ok,
          let image
    else { return nil }
    var stride: Int32 = 0
    guard heif_image_add_plane(image, heif_channel_interleaved, Int32(width), Int32(height),
                               Int32(depth)).code == heif_error_Ok,
          let plane = heif_image_get_plane(image, heif_channel_interleaved, &stride)
    else {
        heif_image_release(image)
        return nil
    }
    let maxValue = (1 << depth) - 1
    for y in 0..<height {
        for x in 0..<width {
            for channel in 0..<channels {
                let value = Int(rgba[(y * width + x) * 4 + channel])
                if depth == 8 {
                    plane[y * Int(stride) + x * channels + channel] = UInt8(value)
                } else {
                    // The 8-bit value at full scale of `depth` bits, rounded.
                    let wide = UInt16((value * maxValue + 127) / 255)
                    let offset = y * Int(stride) + 2 * (x * channels + channel)
                    plane[offset] = UInt8(wide & 0xFF)
                    plane[offset + 1] = UInt8(wide >> 8)
                }
            }
        }
    }
    return image
}

/// The file libheif writes for `context`.
private func writeHEIF(_ context: OpaquePointer) -> [UInt8] {
    final class Sink {
        var bytes: [UInt8] = []
    }
    let sink = Sink()
    var writer = heif_writer(writer_api_version: 1) { _, data, size, userdata in
        // libheif reads the message after the call returns: a static string.
        let message = UnsafeRawPointer(("" as StaticString).utf8Start).assumingMemoryBound(to: CChar.self)
        guard let data, let userdata else {
            return heif_error(code: heif_error_Encoding_error, subcode: heif_suberror_Unspecified, message: message)
        }
        let sink = Unmanaged<Sink>.fromOpaque(userdata).takeUnretainedValue()
        sink.bytes += UnsafeRawBufferPointer(start: data, count: size)
        return heif_error(code: heif_error_Ok, subcode: heif_suberror_Unspecified, message: message)
    }
    let error = withExtendedLifetime(sink) {
        heif_context_write(context, &writer, Unmanaged.passUnretained(sink).toOpaque())
    }
    return error.code == heif_error_Ok ? sink.bytes : []
}
#endif
