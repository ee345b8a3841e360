import CTurboJPEG
import LazyImgCore

/// Makes the benchmarks' JPEGs: full size, quality 90, 4:2:0 chroma (what cjpeg and
/// most cameras and web encoders write by default).
public enum JPEGReencoder {
    public static let quality: Int32 = 90

    /// The JPEG bytes for a PNG (or any file ImageDecoder reads), or nil on failure.
    public static func reencode(_ png: [UInt8], progressive: Bool = false) -> [UInt8]? {
        guard let image = try? ImageDecoder().decode(png, target: .original, limits: DecodeLimits()) else { return nil }
        return encode(rgba: image.pixels.assumingMemoryBound(to: UInt8.self), width: image.width,
                      height: image.height, stride: image.stride, progressive: progressive)
    }

    /// RGBA8 pixels, rows `stride` bytes apart, as JPEG (progressive: libjpeg's
    /// default scan script, as `cjpeg -progressive` writes); nil on failure.
    public static func encode(rgba pixels: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int,
                              progressive: Bool = false) -> [UInt8]? {
        guard let handle = tjInitCompress() else { return nil }
        defer { tjDestroy(handle) }
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let rc = tjCompress2(handle, pixels, Int32(width), Int32(stride), Int32(height),
                             Int32(TJPF_RGBA.rawValue), &output, &size,
                             Int32(TJSAMP_420.rawValue), quality, progressive ? TJFLAG_PROGRESSIVE : 0)
        defer { tjFree(output) }
        guard rc == 0, let output else { return nil }
        return Array(UnsafeBufferPointer(start: output, count: Int(size)))
    }
}
