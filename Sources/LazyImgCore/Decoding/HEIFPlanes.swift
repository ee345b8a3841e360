#if LAZYIMG_HEIF
import CHeif

/// The planes of an image libheif decoded as planar RGB (4:4:4), with alpha when the
/// file has it, read a row at a time as straight RGBA8.
///
/// Samples are 8 bits, or 9 to 16 bits in 16-bit words (10- and 12-bit HEIC); those
/// are scaled to 8 bits with rounding, so full scale stays full scale.
struct HEIFPlanes {
    struct Plane {
        let base: UnsafePointer<UInt8>
        let stride: Int
        /// The largest sample value: 255 for 8-bit planes, 1023 for 10-bit ones.
        let maxValue: Int
        let isWide: Bool

        @inline(__always)
        func sample(_ x: Int, _ y: Int) -> UInt8 {
            guard isWide else { return base[y * stride + x] }
            let value = min(Int(UnsafeRawPointer(base).loadUnaligned(fromByteOffset: y * stride + 2 * x,
                                                                    as: UInt16.self)), maxValue)
            return UInt8((value * 255 + maxValue / 2) / maxValue)
        }
    }

    let width: Int
    let height: Int
    let red: Plane, green: Plane, blue: Plane
    let alpha: Plane?
    /// The colour is multiplied by alpha in the file (rare in HEIC); rows come out straight.
    let isPremultiplied: Bool

    /// nil when the image is not the planar RGB asked for, or its planes disagree.
    init?(_ image: OpaquePointer) {
        width = Int(heif_image_get_width(image, heif_channel_R))
        height = Int(heif_image_get_height(image, heif_channel_R))
        guard width > 0, height > 0,
              let red = Self.plane(image, heif_channel_R, width, height),
              let green = Self.plane(image, heif_channel_G, width, height),
              let blue = Self.plane(image, heif_channel_B, width, height)
        else { return nil }
        self.red = red
        self.green = green
        self.blue = blue
        if heif_image_has_channel(image, heif_channel_Alpha) != 0 {
            guard let alpha = Self.plane(image, heif_channel_Alpha, width, height) else { return nil }
            self.alpha = alpha
        } else {
            alpha = nil
        }
        isPremultiplied = alpha != nil && heif_image_is_premultiplied_alpha(image) != 0
    }

    private static func plane(_ image: OpaquePointer, _ channel: heif_channel, _ width: Int, _ height: Int) -> Plane? {
        let bits = Int(heif_image_get_bits_per_pixel_range(image, channel))
        let storage = Int(heif_image_get_bits_per_pixel(image, channel))
        var stride: Int32 = 0
        guard heif_image_get_width(image, channel) == width, heif_image_get_height(image, channel) == height,
              (8...16).contains(bits), storage == (bits == 8 ? 8 : 16),
              let base = heif_image_get_plane_readonly(image, channel, &stride),
              Int(stride) >= width * storage / 8
        else { return nil }
        return Plane(base: base, stride: Int(stride), maxValue: (1 << bits) - 1, isWide: bits > 8)
    }

    /// Writes row `y` as `width` RGBA8 pixels.
    func interleave(row y: Int, into pixels: UnsafeMutablePointer<UInt8>) {
        for x in 0..<width {
            let pixel = pixels + 4 * x
            let opacity = alpha?.sample(x, y) ?? 255
            pixel[0] = red.sample(x, y)
            pixel[1] = green.sample(x, y)
            pixel[2] = blue.sample(x, y)
            pixel[3] = opacity
            if isPremultiplied && opacity < 255 {
                for channel in 0..<3 {
                    pixel[channel] = opacity == 0 ? 0
                        : UInt8(min(255, (Int(pixel[channel]) * 255 + Int(opacity) / 2) / Int(opacity)))
                }
            }
        }
    }
}
#endif
