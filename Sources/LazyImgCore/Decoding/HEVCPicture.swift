#if LAZYIMG_HEIF
import CDe265

/// The picture of one HEVC-coded image item, decoded by libde265 on the calling
/// thread, and the decoder that holds it until this is released.
///
/// No worker threads are started: libde265 then decodes on the caller, and applies
/// SAO a plane at a time through one plane's copy, where its threaded path would hold
/// a second copy of the whole picture. The NAL units are fed one at a time, each
/// decoded before the next is copied in, so libde265's queue holds one.
final class HEVCPicture {
    struct Plane {
        let base: UnsafePointer<UInt8>
        /// Bytes from one row to the next.
        let stride: Int
        let width: Int
        let height: Int
    }

    private let decoder: UnsafeMutableRawPointer
    /// The luma plane, then Cb and Cr (absent when monochrome), as libde265 hands them
    /// over: the conformance window already cropped off.
    let planes: [Plane]
    /// 8, or 9 to 16 in 16-bit words; luma and chroma alike.
    let bitDepth: Int
    /// From the SPS's video usability information (H.273 code points), what libheif
    /// uses where the item has no `nclx` colour property.
    let colour: HEIFColour

    var width: Int { planes[0].width }
    var height: Int { planes[0].height }
    /// log2 of how many luma columns, and rows, share a chroma sample.
    let chromaShift: (x: Int, y: Int)

    /// libde265's tables are made by the first decoder; keeping one reference to them
    /// for the process spares making them again for every image.
    private static let tablesReady: Bool = de265_init() == DE265_OK

    /// Throws `.decode` when libde265 makes no picture of the item, or one whose planes
    /// differ in depth (libheif refuses those too); `.noMemory` when it runs out.
    init(_ item: HEVCCodedItem, in bytes: UnsafeBufferPointer<UInt8>) throws(LoaderError) {
        guard Self.tablesReady, let decoder = de265_new_decoder() else { throw .noMemory }
        let image: OpaquePointer, planes: [Plane]
        do {
            image = try Self.decode(item, in: bytes, with: decoder)
            planes = try Self.planes(of: image)
        } catch {
            de265_free_decoder(decoder)
            throw error
        }
        self.decoder = decoder
        self.planes = planes
        bitDepth = Int(de265_get_bits_per_pixel(image, 0))
        chromaShift = HEVCSequenceParameters.chromaShift(Int(de265_get_chroma_format(image).rawValue))
        colour = HEIFColour(primaries: Int(de265_get_image_colour_primaries(image)),
                            matrix: Int(de265_get_image_matrix_coefficients(image)),
                            fullRange: de265_get_image_full_range_flag(image) != 0)
    }

    deinit {
        de265_free_decoder(decoder)
    }

    /// The picture's planes, when each holds its rows at one depth of 8 to 16 bits and
    /// the chroma planes are the luma's size subsampled (libde265's always are).
    private static func planes(of image: OpaquePointer) throws(LoaderError) -> [Plane] {
        let chroma = de265_get_chroma_format(image)
        let depth = de265_get_bits_per_pixel(image, 0)
        let shift = HEVCSequenceParameters.chromaShift(Int(chroma.rawValue))
        var planes: [Plane] = []
        for channel in Int32(0)..<(chroma == de265_chroma_mono ? 1 : 3) {
            var stride: Int32 = 0
            let width = Int(de265_get_image_width(image, channel)), height = Int(de265_get_image_height(image, channel))
            guard (8...16).contains(depth), de265_get_bits_per_pixel(image, channel) == depth,
                  width > 0, height > 0, let base = de265_get_image_plane(image, channel, &stride),
                  Int(stride) >= width * (depth > 8 ? 2 : 1)
            else { throw .decode }
            if let luma = planes.first {
                guard width == (luma.width + (1 << shift.x) - 1) >> shift.x,
                      height == (luma.height + (1 << shift.y) - 1) >> shift.y
                else { throw .decode }
            }
            planes.append(Plane(base: base, stride: Int(stride), width: width, height: height))
        }
        return planes
    }

    /// Feeds the item's NAL units to `decoder` and returns the picture it made.
    private static func decode(_ item: HEVCCodedItem, in bytes: UnsafeBufferPointer<UInt8>,
                               with decoder: UnsafeMutableRawPointer) throws(LoaderError) -> OpaquePointer {
        var failure: de265_error?
        item.forEachUnit(in: bytes) { unit in
            guard failure == nil else { return }
            let pushed = de265_push_NAL(decoder, unit.baseAddress, Int32(unit.count), 0, nil)
            failure = pushed == DE265_OK ? decodeQueued(decoder) : pushed
        }
        if let failure { try check(failure) }
        de265_flush_data(decoder)
        // At the end of the stream libde265 reports "more" while a picture waits to be
        // taken, so the picture ends the loop.
        while de265_peek_next_picture(decoder) == nil {
            var more: Int32 = 0
            try check(de265_decode(decoder, &more))
            guard more != 0 else { break }
        }
        guard let image = de265_get_next_picture(decoder) else { throw .decode }
        return image
    }

    /// Decodes what has been pushed, until libde265 wants the next unit.
    private static func decodeQueued(_ decoder: UnsafeMutableRawPointer) -> de265_error? {
        var more: Int32 = 1
        while more != 0 {
            let result = de265_decode(decoder, &more)
            if result == DE265_ERROR_WAITING_FOR_INPUT_DATA { return nil }
            if result != DE265_OK { return result }
        }
        return nil
    }

    private static func check(_ error: de265_error) throws(LoaderError) {
        switch error {
        case DE265_OK: return
        case DE265_ERROR_OUT_OF_MEMORY: throw .noMemory
        default: throw .decode
        }
    }
}
#endif
