/// A decoded, downsampled image as a disk cache body, so a warm start shows it
/// without downloading or decoding the original.
///
///     0 "LZTH"  4 width  8 height  12 source width  16 source height (u32 LE)
///    20 pixel format (0 RGBA, 1 BGRA premultiplied)  21 animated (0/1)
///    22 damaged (0/1; 0 in thumbnails written before 0.4)  23 zero
///    24 rows of width * 4 bytes, top first
/// The entry's CRC already guards the bytes; this checks the sizes agree.
enum DiskCacheThumbnail {
    private static let magic: [UInt8] = Array("LZTH".utf8)
    private static let headerSize = 24

    /// The disk cache variant for images decoded with `options`: one per box, fit
    /// and pixel layout, beside the URL's original.
    static func variant(_ options: DecodeOptions) -> String {
        let fit = options.fit == .fit ? "inside" : "fill"
        let format = options.format == .rgba8 ? "rgba" : "bgra-premul"
        return "thumb/\(options.target.width)x\(options.target.height)/\(fit)/\(format)"
    }

    static func encode(_ image: DecodedImage) -> [UInt8] {
        var bytes = magic
        for value in [image.width, image.height, image.sourceWidth, image.sourceHeight] {
            for i in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * i))) }
        }
        bytes += [image.format == .rgba8 ? 0 : 1, image.isAnimated ? 1 : 0, image.isDamaged ? 1 : 0, 0]
        bytes.reserveCapacity(headerSize + image.width * 4 * image.height)
        for y in 0..<image.height { bytes += image.row(y) }
        return bytes
    }

    /// The image, or nil when the bytes are not a thumbnail of a sane size.
    static func decode(_ bytes: [UInt8]) -> DecodedImage? {
        guard bytes.count >= headerSize, Array(bytes[0..<4]) == magic, bytes[20] <= 1 else { return nil }
        func field(_ offset: Int) -> Int {
            (0..<4).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
        }
        let (width, height) = (field(4), field(8))
        guard width > 0, height > 0, width <= 1 << 16, height <= 1 << 16,
              bytes.count - headerSize == width * 4 * height,
              let image = DecodedImage(width: width, height: height, sourceWidth: field(12), sourceHeight: field(16),
                                       format: bytes[20] == 0 ? .rgba8 : .bgra8Premultiplied,
                                       isAnimated: bytes[21] == 1)
        else { return nil }
        bytes.withUnsafeBytes { source in
            image.pixels.copyMemory(from: source.baseAddress! + headerSize, byteCount: width * 4 * height)
        }
        image.isDamaged = bytes[22] == 1
        return image
    }
}
