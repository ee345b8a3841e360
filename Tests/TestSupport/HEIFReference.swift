#if LAZYIMG_HEIF
import CHeif

/// An image as libheif decodes it on its own, transformations applied: the second
/// decoder AVIF and HEIC pixels and orientations are checked against.
public struct HEIFReferenceImage {
    public let width: Int
    public let height: Int
    /// RGBA8, rows back to back.
    public let rgba: [UInt8]
}

/// The primary image of `bytes` (HEIC or AVIF) as libheif shows it; nil when it fails.
public func decodeWithLibheif(_ bytes: [UInt8]) -> HEIFReferenceImage? {
    decodeWithLibheif(bytes, chroma: heif_chroma_interleaved_RGBA) { image in
        var stride: Int32 = 0
        let width = Int(heif_image_get_width(image, heif_channel_interleaved))
        let height = Int(heif_image_get_height(image, heif_channel_interleaved))
        guard let plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride) else { return nil }
        var rgba: [UInt8] = []
        for y in 0..<height {
            rgba += UnsafeBufferPointer(start: plane + y * Int(stride), count: width * 4)
        }
        return HEIFReferenceImage(width: width, height: height, rgba: rgba)
    }
}

/// The primary image of a HEIC as libheif 1.15 decodes it to planes of RGB (and alpha)
/// at the file's depth, brought to RGBA8 as the library brings samples of more than 8
/// bits: value x 255 / max, rounded. What HEIC pixels are checked against, to the bit;
/// nil when libheif fails (it cannot mirror images of more than 8 bits).
public func decodeWithLibheifAtDepth(_ bytes: [UInt8]) -> HEIFReferenceImage? {
    decodeWithLibheif(bytes, chroma: heif_chroma_444) { image in
        let width = Int(heif_image_get_width(image, heif_channel_R))
        let height = Int(heif_image_get_height(image, heif_channel_R))
        let channels = [heif_channel_R, heif_channel_G, heif_channel_B]
            + (heif_image_has_channel(image, heif_channel_Alpha) != 0 ? [heif_channel_Alpha] : [])
        var rgba = [UInt8](repeating: 255, count: width * height * 4)
        for (index, channel) in channels.enumerated() {
            let bits = Int(heif_image_get_bits_per_pixel_range(image, channel)), maxValue = (1 << bits) - 1
            var stride: Int32 = 0
            guard let plane = heif_image_get_plane_readonly(image, channel, &stride) else { return nil }
            for y in 0..<height {
                for x in 0..<width {
                    let value = bits == 8 ? Int(plane[y * Int(stride) + x])
                        : Int(plane[y * Int(stride) + 2 * x]) | Int(plane[y * Int(stride) + 2 * x + 1]) << 8
                    rgba[(y * width + x) * 4 + index] = UInt8((min(value, maxValue) * 255 + maxValue / 2) / maxValue)
                }
            }
        }
        return HEIFReferenceImage(width: width, height: height, rgba: rgba)
    }
}

/// libheif's decode of the primary image as RGB in `chroma`, read by `read`.
private func decodeWithLibheif(_ bytes: [UInt8], chroma: heif_chroma,
                               read: (OpaquePointer) -> HEIFReferenceImage?) -> HEIFReferenceImage? {
    guard let context = heif_context_alloc() else { return nil }
    defer { heif_context_free(context) }
    var handle: OpaquePointer?
    guard bytes.withUnsafeBytes({ heif_context_read_from_memory(context, $0.baseAddress, $0.count, nil) }).code == heif_error_Ok,
          heif_context_get_primary_image_handle(context, &handle).code == heif_error_Ok, let handle
    else { return nil }
    defer { heif_image_handle_release(handle) }
    var image: OpaquePointer?
    guard heif_decode_image(handle, &image, heif_colorspace_RGB, chroma, nil).code == heif_error_Ok, let image else {
        return nil
    }
    defer { heif_image_release(image) }
    return read(image)
}
#endif
