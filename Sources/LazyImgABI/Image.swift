import CLazyImgHeader
import LazyImgCore

/// A `lazyimg_image *` is an unmanaged `DecodedImage`; its reference count is the
/// Swift object's own.
func imagePointer(passRetained image: DecodedImage) -> OpaquePointer {
    OpaquePointer(Unmanaged.passRetained(image).toOpaque())
}

private func image(_ pointer: OpaquePointer) -> Unmanaged<DecodedImage> {
    Unmanaged<DecodedImage>.fromOpaque(UnsafeRawPointer(pointer))
}

@_cdecl("lazyimg_image_retain")
public func lazyimg_image_retain(_ pointer: OpaquePointer?) -> OpaquePointer? {
    guard let pointer else { return nil }
    _ = image(pointer).retain()
    return pointer
}

@_cdecl("lazyimg_image_release")
public func lazyimg_image_release(_ pointer: OpaquePointer?) {
    guard let pointer else { return }
    image(pointer).release()
}

@_cdecl("lazyimg_image_width")
public func lazyimg_image_width(_ pointer: OpaquePointer?) -> UInt32 {
    pointer.map { UInt32(clamping: image($0).takeUnretainedValue().width) } ?? 0
}

@_cdecl("lazyimg_image_height")
public func lazyimg_image_height(_ pointer: OpaquePointer?) -> UInt32 {
    pointer.map { UInt32(clamping: image($0).takeUnretainedValue().height) } ?? 0
}

@_cdecl("lazyimg_image_stride")
public func lazyimg_image_stride(_ pointer: OpaquePointer?) -> Int {
    pointer.map { image($0).takeUnretainedValue().stride } ?? 0
}

@_cdecl("lazyimg_image_pixels")
public func lazyimg_image_pixels(_ pointer: OpaquePointer?) -> UnsafePointer<UInt8>? {
    guard let decoded = pointer.map({ image($0).takeUnretainedValue() }), decoded.encoded == nil else { return nil }
    return UnsafePointer(decoded.pixels.assumingMemoryBound(to: UInt8.self))
}

@_cdecl("lazyimg_image_pixel_format")
public func lazyimg_image_pixel_format(_ pointer: OpaquePointer?) -> lazyimg_pixel_format {
    switch pointer.map({ image($0).takeUnretainedValue().format }) {
    case .bgra8Premultiplied: LAZYIMG_PIXEL_BGRA8_PREMULTIPLIED
    case .rgba8, nil: LAZYIMG_PIXEL_RGBA8
    }
}

@_cdecl("lazyimg_image_is_animated")
public func lazyimg_image_is_animated(_ pointer: OpaquePointer?) -> Int32 {
    pointer.map { image($0).takeUnretainedValue().isAnimated ? 1 : 0 } ?? 0
}

@_cdecl("lazyimg_image_is_placeholder")
public func lazyimg_image_is_placeholder(_ pointer: OpaquePointer?) -> Int32 {
    pointer.map { image($0).takeUnretainedValue().isPlaceholder ? 1 : 0 } ?? 0
}

@_cdecl("lazyimg_image_is_damaged")
public func lazyimg_image_is_damaged(_ pointer: OpaquePointer?) -> Int32 {
    pointer.map { image($0).takeUnretainedValue().isDamaged ? 1 : 0 } ?? 0
}

@_cdecl("lazyimg_image_encoded_data")
public func lazyimg_image_encoded_data(_ pointer: OpaquePointer?,
                                       _ outSize: UnsafeMutablePointer<Int>?) -> UnsafePointer<UInt8>? {
    outSize?.pointee = 0
    guard let pointer else { return nil }
    let loaded = image(pointer).takeUnretainedValue()
    guard let bytes = loaded.encoded else { return nil }
    outSize?.pointee = bytes.count
    return bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
}

@_cdecl("lazyimg_image_codec")
public func lazyimg_image_codec(_ pointer: OpaquePointer?) -> lazyimg_codec {
    switch pointer.flatMap({ image($0).takeUnretainedValue().codec }) {
    case .jpeg: LAZYIMG_CODEC_JPEG
    case .png: LAZYIMG_CODEC_PNG
    case .gif: LAZYIMG_CODEC_GIF
    case .webp: LAZYIMG_CODEC_WEBP
    case .avif: LAZYIMG_CODEC_AVIF
    case .heif: LAZYIMG_CODEC_HEIF
    default: LAZYIMG_CODEC_UNKNOWN
    }
}

@_cdecl("lazyimg_image_source_width")
public func lazyimg_image_source_width(_ pointer: OpaquePointer?) -> UInt32 {
    pointer.map { UInt32(clamping: image($0).takeUnretainedValue().sourceWidth) } ?? 0
}

@_cdecl("lazyimg_image_source_height")
public func lazyimg_image_source_height(_ pointer: OpaquePointer?) -> UInt32 {
    pointer.map { UInt32(clamping: image($0).takeUnretainedValue().sourceHeight) } ?? 0
}
