#if LAZYIMG_HEIF
import CHeif

/// Decodes HEIC (HEVC-coded HEIF, grids of tiles included) with libheif and libde265.
///
/// libheif 1.15 sizes buffers from parts of the file it does not check against one
/// another, so `HEIFItems` first checks every item's `ispe`, every grid and overlay
/// canvas, the grid cells and every HEVC picture size against `max_pixels`; libheif
/// then also refuses a side past it (its own limit, at most 32768). The primary
/// image's size is checked once more through libheif. AV1 inside a HEIF-branded file
/// is refused: libheif would hand it to dav1d with all cores and its 32768 x 32768
/// limit (AVIF-branded files go to `AVIFDecoder`).
///
/// libheif applies `clap`, `irot` and `imir` itself, so the pixels arrive upright and
/// the builder is told `.up`: the orientation is applied once, and the Exif tag is
/// ignored, as in `AVIFDecoder`. Grid cells are decoded on the calling thread one after
/// another (`max_decoding_threads` 0); libheif runs each libde265 decode in one worker
/// thread while the caller waits, so one decode keeps one core busy.
///
/// libheif hands over planes of R, G, B (and alpha) at the file's bit depth; rows are
/// interleaved, brought to 8 bits with rounding, and passed to the resampler one at a
/// time, so no full-size RGBA image is made on top of libheif's planes.
public struct HEIFDecoder: ImageDecoding {
    /// libheif's largest side (its MAX_IMAGE_WIDTH and _HEIGHT).
    private static let libheifMaxSide = 32768

    public init() {}

    public func decode(_ data: [UInt8], options: DecodeOptions, limits: DecodeLimits) throws(LoaderError) -> DecodedImage {
        try data.withUnsafeBufferPointer { (bytes) throws(LoaderError) -> DecodedImage in
            guard let base = bytes.baseAddress, !bytes.isEmpty else { throw .decode }
            let items = try HEIFItems(parsing: bytes)
            try items.checkImageSizes(in: bytes, maxPixels: limits.maxPixels)
            try items.checkHEVCPictures(in: bytes, maxPixels: limits.maxPixels)
            guard !items.items.values.contains(where: { $0.type == HEIFItems.fourCC("av01") }) else { throw .unsupported }

            guard let context = heif_context_alloc() else { throw .noMemory }
            defer { heif_context_free(context) }
            heif_context_set_max_decoding_threads(context, 0)
            // A side longer than max_pixels can never pass; libheif refuses a grid side
            // equal to its limit, hence the one more.
            heif_context_set_maximum_image_size_limit(context, Int32(min(limits.maxPixels, Self.libheifMaxSide - 1) + 1))
            try Self.check(heif_context_read_from_memory_without_copy(context, base, bytes.count, nil))
            var handle: OpaquePointer?
            try Self.check(heif_context_get_primary_image_handle(context, &handle))
            guard let handle else { throw .decode }
            defer { heif_image_handle_release(handle) }
            let width = Int(heif_image_handle_get_width(handle)), height = Int(heif_image_handle_get_height(handle))
            guard width > 0, height > 0 else { throw .decode }
            guard limits.admits(width: width, height: height) else { throw .tooLarge }

            var decoded: OpaquePointer?
            try Self.check(heif_decode_image(handle, &decoded, heif_colorspace_RGB, heif_chroma_444, nil))
            guard let decoded else { throw .decode }
            defer { heif_image_release(decoded) }
            guard let planes = HEIFPlanes(decoded), limits.admits(width: planes.width, height: planes.height) else {
                throw .decode
            }
            let geometry = OutputGeometry(displayedWidth: planes.width, height: planes.height, orientation: .up,
                                          options: options)
            let builder = DecodedImageBuilder(geometry: geometry, format: options.format, sourceWidth: planes.width,
                                              sourceHeight: planes.height, isAnimated: false,
                                              opaque: planes.alpha == nil)
            return try builder.buildByRows(decodedWidth: planes.width, decodedHeight: planes.height) { addRow in
                let row = UnsafeMutableRawPointer.allocate(byteCount: planes.width * 4, alignment: 16)
                defer { row.deallocate() }
                for y in 0..<planes.height {
                    planes.interleave(row: y, into: row.assumingMemoryBound(to: UInt8.self))
                    addRow(UnsafeRawPointer(row))
                }
            }
        }
    }

    private static func check(_ error: heif_error) throws(LoaderError) {
        switch error.code {
        case heif_error_Ok: return
        case heif_error_Memory_allocation_error:
            throw error.subcode == heif_suberror_Security_limit_exceeded ? .tooLarge : .noMemory
        default: throw .decode
        }
    }
}
#endif
