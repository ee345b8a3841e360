#if LAZYIMG_HEIF
import CHeif

/// An image as libheif decodes it on its own, transformations applied: the second
/// decoder AVIF pixels and orientations are checked against.
public struct HEIFReferenceImage {
    public let width: Int
    public let height: Int
    /// RGBA8, rows back to back.
    public let rgba: [UInt8]
}

/// The primary image of `bytes` (HEIC or AVIF) as libheif shows it; nil when it fails.
public func decodeWithLibheif(_ bytes: [UInt8]) -> HEIFReferenceImage? {
    guard let context = heif_context_alloc() else { return nil }
    defer { heif_context_free(context) }
    var handle: OpaquePointer?
    guard bytes.withUnsafeBytes({ heif_context_read_from_memory(context, $0.baseAddress, $0.count, nil) }).code == heif_error_Ok,
          heif_context_get_primary_image_handle(context, &handle).code == heif_error_Ok, let handle
    else { return nil }
    defer { heif_image_handle_release(handle) }
    var image: OpaquePointer?
    guard heif_decode_image(handle, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGBA, nil).code == heif_error_Ok,
          let image
    else { return nil }
    defer { heif_image_release(image) }
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
#endif
