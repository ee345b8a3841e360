import CTurboJPEG
import LazyImgCore

/// Turns the corpus PNGs into the benchmark's JPEGs: full size, quality 90, 4:2:0
/// chroma (what cjpeg and most cameras and web encoders write by default).
enum JPEGReencoder {
    static let quality: Int32 = 90

    /// The JPEG bytes for a PNG (or any file ImageDecoder reads), or nil on failure.
    static func reencode(_ png: [UInt8]) -> [UInt8]? {
        guard let image = try? ImageDecoder().decode(png, target: .original, limits: DecodeLimits()),
              let handle = tjInitCompress()
        else { return nil }
        defer { tjDestroy(handle) }
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let rc = tjCompress2(handle, image.pixels.assumingMemoryBound(to: UInt8.self),
                             Int32(image.width), Int32(image.stride), Int32(image.height),
                             Int32(TJPF_RGBA.rawValue), &output, &size,
                             Int32(TJSAMP_420.rawValue), quality, 0)
        defer { tjFree(output) }
        guard rc == 0, let output else { return nil }
        return Array(UnsafeBufferPointer(start: output, count: Int(size)))
    }
}
