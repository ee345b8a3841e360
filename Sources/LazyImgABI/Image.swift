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
    pointer.map { UnsafePointer(image($0).takeUnretainedValue().pixels.assumingMemoryBound(to: UInt8.self)) }
}

@_cdecl("lazyimg_image_source_width")
public func lazyimg_image_source_width(_ pointer: OpaquePointer?) -> UInt32 {
    pointer.map { UInt32(clamping: image($0).takeUnretainedValue().sourceWidth) } ?? 0
}

@_cdecl("lazyimg_image_source_height")
public func lazyimg_image_source_height(_ pointer: OpaquePointer?) -> UInt32 {
    pointer.map { UInt32(clamping: image($0).takeUnretainedValue().sourceHeight) } ?? 0
}
