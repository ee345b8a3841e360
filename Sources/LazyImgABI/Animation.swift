import CLazyImgHeader
import LazyImgCore

// The animation calls (lazyimg.h, "animations"): the first frame's image tells the
// frames, the loader hands them out by row.

private func decoded(_ pointer: OpaquePointer?) -> DecodedImage? {
    pointer.map { Unmanaged<DecodedImage>.fromOpaque(UnsafeRawPointer($0)).takeUnretainedValue() }
        .flatMap { $0.encoded == nil ? $0 : nil }
}

@_cdecl("lazyimg_image_frame_count")
public func lazyimg_image_frame_count(_ pointer: OpaquePointer?) -> UInt32 {
    guard let image = decoded(pointer) else { return 0 }
    return UInt32(clamping: image.animation?.frameCount ?? 1)
}

@_cdecl("lazyimg_image_frame_duration")
public func lazyimg_image_frame_duration(_ pointer: OpaquePointer?, _ frame: UInt32) -> UInt32 {
    guard let source = decoded(pointer)?.animation, Int(frame) < source.frameCount else { return 0 }
    return UInt32(clamping: source.duration(ofFrame: Int(frame)))
}

@_cdecl("lazyimg_image_loop_count")
public func lazyimg_image_loop_count(_ pointer: OpaquePointer?) -> UInt32 {
    guard let image = decoded(pointer) else { return 0 }
    return UInt32(clamping: image.animation?.loopCount ?? 1)
}

/// The status of a frame answer, with the frame in `out` for OK.
private func answer(_ found: ImageLoader.FrameAnswer, _ out: UnsafeMutablePointer<OpaquePointer?>) -> lazyimg_status {
    switch found {
    case .frame(let image):
        out.pointee = imagePointer(passRetained: image)
        return LAZYIMG_OK
    case .notYet:
        return LAZYIMG_NOT_YET
    case .miss:
        return LAZYIMG_MISS
    }
}

@_cdecl("lazyimg_frame_at")
public func lazyimg_frame_at(_ pointer: OpaquePointer?, _ row: UInt, _ time: UInt64,
                             _ out: UnsafeMutablePointer<OpaquePointer?>?, _ outFrame: UnsafeMutablePointer<UInt32>?,
                             _ outNext: UnsafeMutablePointer<UInt64>?) -> lazyimg_status {
    outFrame?.pointee = 0
    outNext?.pointee = .max
    guard let out else { return LAZYIMG_E_INVALID_ARGUMENT }
    out.pointee = nil
    return withLoader(pointer) { loader throws(LoaderError) in
        let found = try loader.frame(row: Int(clamping: row), at: time)
        outFrame?.pointee = UInt32(clamping: found.index)
        outNext?.pointee = found.nextChange ?? .max
        return answer(found.answer, out)
    }
}

@_cdecl("lazyimg_frame")
public func lazyimg_frame(_ pointer: OpaquePointer?, _ row: UInt, _ frame: UInt32,
                          _ out: UnsafeMutablePointer<OpaquePointer?>?) -> lazyimg_status {
    guard let out else { return LAZYIMG_E_INVALID_ARGUMENT }
    out.pointee = nil
    return withLoader(pointer) { loader throws(LoaderError) in
        answer(try loader.frame(row: Int(clamping: row), index: Int(frame)), out)
    }
}
