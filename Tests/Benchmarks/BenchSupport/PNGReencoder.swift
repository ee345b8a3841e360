import CSpng
import Glibc
import LazyImgCore

/// Photos as PNG (8-bit RGB, libspng's default compression), plain or Adam7-interlaced,
/// for a site of PNGs.
public enum PNGReencoder {
    /// A decodable image file as PNG; nil when it does not decode or encode.
    public static func reencode(_ file: [UInt8], interlaced: Bool) -> [UInt8]? {
        guard let image = try? ImageDecoder().decode(file, target: .original, limits: DecodeLimits()) else { return nil }
        return encode(rgba: image.pixels.assumingMemoryBound(to: UInt8.self), width: image.width, height: image.height,
                      stride: image.stride, interlaced: interlaced)
    }

    /// RGBA8 pixels, rows `stride` bytes apart, as an RGB PNG (alpha dropped: photos
    /// are opaque); nil on failure.
    public static func encode(rgba pixels: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int,
                              interlaced: Bool) -> [UInt8]? {
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<3 { rgb[(y * width + x) * 3 + c] = pixels[y * stride + x * 4 + c] }
            }
        }
        guard let context = spng_ctx_new(Int32(SPNG_CTX_ENCODER.rawValue)) else { return nil }
        defer { spng_ctx_free(context) }
        spng_set_option(context, SPNG_ENCODE_TO_BUFFER, 1)
        var header = spng_ihdr(width: UInt32(width), height: UInt32(height), bit_depth: 8,
                               color_type: UInt8(SPNG_COLOR_TYPE_TRUECOLOR.rawValue), compression_method: 0,
                               filter_method: 0, interlace_method: interlaced ? 1 : 0)
        guard spng_set_ihdr(context, &header) == 0,
              spng_encode_image(context, rgb, rgb.count, Int32(SPNG_FMT_PNG.rawValue),
                                Int32(SPNG_ENCODE_FINALIZE.rawValue)) == 0
        else { return nil }
        var length = 0
        var error: Int32 = 0
        guard let buffer = spng_get_png_buffer(context, &length, &error), error == 0 else { return nil }
        defer { free(buffer) }
        return Array(UnsafeRawBufferPointer(start: buffer, count: length))
    }
}
