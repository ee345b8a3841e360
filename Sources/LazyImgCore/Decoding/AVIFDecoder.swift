#if LAZYIMG_AVIF
import CAvif

/// Decodes AVIF (still images, grids, and the first frame of sequences) with libavif
/// and dav1d.
///
/// Before libavif sees the file, `HEIFItems` checks every image item's size, grid and
/// derivation against `max_pixels`; libavif then parses the container, the primary
/// image's size is checked again, and `AVIFDecodeCost` counts what the decode will hold
/// against `max_decode_bytes`. dav1d is told to refuse frames larger than their items
/// (libavif's aom and libgav1 decoders would not honour that limit, so dav1d is asked
/// for by name). One decode runs on the calling thread (`maxThreads` 1): the decode
/// pool already decodes one image per thread.
///
/// AV1 gives planes of YUV; libavif turns them into RGBA8 (scaling 10- and 12-bit
/// samples, applying alpha) a band of rows at a time, so the full-size RGBA image is
/// never held: each row goes on to the resampler as it is made. The clean aperture
/// (`clap`) crops, and `irot`/`imir` become the image's orientation, applied by the
/// builder after shrinking. The Exif Orientation tag is ignored: in HEIF-based formats
/// the transformative properties govern, and MIAF asks for no orientation in Exif.
public final class AVIFDecoder: ImageDecoding {
    /// Rows converted at once, plus two more on each side so that libavif's chroma
    /// upsampling sees the neighbouring rows and every band matches a whole-image
    /// conversion.
    static let bandRows = 32
    private static let contextRows = 2

    public private(set) var lastFailureReason = ""

    public init() {}

    public func decode(_ data: [UInt8], options: DecodeOptions, limits: DecodeLimits) throws(LoaderError) -> DecodedImage {
        lastFailureReason = ""
        return try Self.parse(data, limits: limits) { (decoder, parsed, cost) throws(LoaderError) -> DecodedImage in
            let header = parsed.pointee
            let crop = Self.cleanAperture(parsed)
            let orientation = Self.orientation(header)
            let displayed = orientation.displayed(width: crop.width, height: crop.height)
            let geometry = OutputGeometry(displayedWidth: displayed.width, height: displayed.height,
                                          orientation: orientation, options: options)
            let builder = DecodedImageBuilder(geometry: geometry, format: options.format, sourceWidth: displayed.width,
                                              sourceHeight: displayed.height, isAnimated: decoder.pointee.imageCount > 1,
                                              opaque: decoder.pointee.alphaPresent == 0)
            if let refusal = limits.workingMemoryRefusal(cost.description,
                                                         needs: cost.bytes.addingSaturating(builder.cropScratchBytes())) {
                lastFailureReason = refusal
                throw .tooLarge
            }
            // dav1d reads the limit when libavif opens it, in the first NextImage: no
            // frame may have more pixels than its item, as counted.
            decoder.pointee.imageSizeLimit = UInt32(max(1, min(limits.maxPixels, Int(AVIF_DEFAULT_IMAGE_SIZE_LIMIT),
                                                               cost.largestFramePixels)))
            try Self.check(avifDecoderNextImage(decoder))
            guard let frame = decoder.pointee.image, frame.pointee.yuvPlanes.0 != nil,
                  frame.pointee.width == header.width, frame.pointee.height == header.height
            else { throw .decode }
            return try Self.build(frame, crop: crop, with: builder)
        }
    }

    /// What decoding `data` holds, as `decode` counts it before decoding.
    static func cost(of data: [UInt8]) throws(LoaderError) -> AVIFDecodeCost {
        try parse(data, limits: DecodeLimits(maxPixels: Int(UInt32.max))) { (_, _, cost) throws(LoaderError) in cost }
    }

    /// Checks the items, has libavif parse the file (sizes checked against `limits`) and
    /// hands `body` the decoder, its parsed image and what decoding it will cost.
    private static func parse<Result>(_ data: [UInt8], limits: DecodeLimits,
                                      _ body: (UnsafeMutablePointer<avifDecoder>, UnsafeMutablePointer<avifImage>,
                                               AVIFDecodeCost) throws(LoaderError) -> Result) throws(LoaderError) -> Result {
        try data.withUnsafeBufferPointer { (bytes) throws(LoaderError) -> Result in
            guard let base = bytes.baseAddress, !bytes.isEmpty else { throw .decode }
            let items = try HEIFItems(parsing: bytes)
            try items.checkImageSizes(in: bytes, maxPixels: limits.maxPixels)

            guard let decoder = avifDecoderCreate() else { throw .noMemory }
            defer { avifDecoderDestroy(decoder) }
            decoder.pointee.maxThreads = 1
            decoder.pointee.codecChoice = AVIF_CODEC_CHOICE_DAV1D
            decoder.pointee.ignoreExif = 1
            decoder.pointee.ignoreXMP = 1
            try check(avifDecoderSetIOMemory(decoder, base, bytes.count))
            // Parsed under libavif's own limits (no pixels exist yet), so that a size past
            // max_pixels is reported as too large rather than as a parse failure.
            try check(avifDecoderParse(decoder))
            guard let parsed = decoder.pointee.image, parsed.pointee.width > 0, parsed.pointee.height > 0 else {
                throw .decode
            }
            guard limits.admits(width: Int(parsed.pointee.width), height: Int(parsed.pointee.height)) else {
                throw .tooLarge
            }
            return try body(decoder, parsed, cost(parsed.pointee, alpha: decoder.pointee.alphaPresent != 0, items, bytes))
        }
    }

    /// What the decode will hold, from the parsed header and the items: the primary
    /// image's cells (or the image itself; a sequence's frame), and its alpha's.
    private static func cost(_ header: avifImage, alpha: Bool, _ items: HEIFItems,
                             _ bytes: UnsafeBufferPointer<UInt8>) -> AVIFDecodeCost {
        let whole = AVIFDecodeCost.Coded(cells: 1, cellWidth: Int(header.width), cellHeight: Int(header.height),
                                         canvas: nil)
        func coded(_ id: Int?) -> AVIFDecodeCost.Coded {
            guard let id, let item = items.items[id] else { return whole }
            guard item.type == HEIFItems.fourCC("grid"), let layout = items.gridLayout(of: item, in: bytes),
                  let inputs = items.inputs[id]
            else { return items.spatialExtents(of: item, in: bytes).map { .init(cells: 1, cellWidth: $0.width,
                                                                                cellHeight: $0.height, canvas: nil) } ?? whole }
            // libavif requires an ispe of every cell.
            let sizes = inputs.compactMap { items.items[$0].flatMap { items.spatialExtents(of: $0, in: bytes) } }
            return .init(cells: inputs.count, cellWidth: sizes.map(\.width).max() ?? 0,
                         cellHeight: sizes.map(\.height).max() ?? 0, canvas: (layout.width, layout.height))
        }
        let chroma: Int
        switch header.yuvFormat {
        case AVIF_PIXEL_FORMAT_YUV400: chroma = 0
        case AVIF_PIXEL_FORMAT_YUV420: chroma = 1
        case AVIF_PIXEL_FORMAT_YUV422: chroma = 2
        default: chroma = 3
        }
        let alphaItem = items.primary.flatMap { items.alphaItem(of: $0, in: bytes) }
        return AVIFDecodeCost(width: Int(header.width), height: Int(header.height), depth: Int(header.depth),
                              chromaFormat: chroma, colour: coded(items.primary),
                              alpha: alpha ? (alphaItem.map(coded) ?? coded(items.primary)) : nil)
    }

    private static func build(_ frame: UnsafeMutablePointer<avifImage>, crop: (x: Int, y: Int, width: Int, height: Int),
                              with builder: DecodedImageBuilder) throws(LoaderError) -> DecodedImage {
        let image = frame.pointee
        return try builder.buildByRows(decodedWidth: crop.width, decodedHeight: crop.height) {
            (addRow) throws(LoaderError) in
            let width = Int(image.width)
            let band = UnsafeMutableRawPointer.allocate(byteCount: width * 4 * (bandRows + 2 * contextRows),
                                                        alignment: 16)
            defer { band.deallocate() }
            for top in stride(from: crop.y, to: crop.y + crop.height, by: bandRows) {
                let bottom = min(top + bandRows, crop.y + crop.height)
                let viewTop = max(0, top - contextRows), viewBottom = min(Int(image.height), bottom + contextRows)
                try convert(frame, rows: viewTop..<viewBottom, into: band)
                for y in top..<bottom {
                    addRow(UnsafeRawPointer(band + (y - viewTop) * width * 4 + crop.x * 4))
                }
            }
        }
    }

    /// Converts `rows` of the frame to RGBA8 rows `4 * width` bytes apart, through a view
    /// of the frame that starts at the first of them (`rows` starts on an even row, so
    /// subsampled chroma rows line up).
    private static func convert(_ frame: UnsafeMutablePointer<avifImage>, rows: Range<Int>,
                                into pixels: UnsafeMutableRawPointer) throws(LoaderError) {
        var view = frame.pointee
        view.height = UInt32(rows.count)
        view.imageOwnsYUVPlanes = 0
        view.imageOwnsAlphaPlane = 0
        // 4:2:0 halves the chroma rows; 4:2:2, 4:4:4 and 4:0:0 keep them (4:0:0 has none).
        let chromaTop = view.yuvFormat == AVIF_PIXEL_FORMAT_YUV420 ? rows.lowerBound / 2 : rows.lowerBound
        view.yuvPlanes.0 = view.yuvPlanes.0.map { $0 + rows.lowerBound * Int(view.yuvRowBytes.0) }
        view.yuvPlanes.1 = view.yuvPlanes.1.map { $0 + chromaTop * Int(view.yuvRowBytes.1) }
        view.yuvPlanes.2 = view.yuvPlanes.2.map { $0 + chromaTop * Int(view.yuvRowBytes.2) }
        view.alphaPlane = view.alphaPlane.map { $0 + rows.lowerBound * Int(view.alphaRowBytes) }

        var rgb = avifRGBImage()
        avifRGBImageSetDefaults(&rgb, &view)
        rgb.depth = 8
        rgb.format = AVIF_RGB_FORMAT_RGBA
        rgb.alphaPremultiplied = 0
        rgb.pixels = pixels.assumingMemoryBound(to: UInt8.self)
        rgb.rowBytes = view.width * 4
        try check(avifImageYUVToRGB(&view, &rgb))
    }

    /// The rectangle `clap` keeps, or the whole frame when there is none or libavif
    /// finds it invalid (browsers then show the whole frame too).
    private static func cleanAperture(_ frame: UnsafeMutablePointer<avifImage>) -> (x: Int, y: Int, width: Int, height: Int) {
        let image = frame.pointee
        let whole = (x: 0, y: 0, width: Int(image.width), height: Int(image.height))
        guard image.transformFlags & AVIF_TRANSFORM_CLAP.rawValue != 0 else { return whole }
        var rect = avifCropRect()
        var clap = image.clap
        var diagnostics = avifDiagnostics()
        guard avifCropRectConvertCleanApertureBox(&rect, &clap, image.width, image.height, image.yuvFormat,
                                                  &diagnostics) != 0,
              rect.width > 0, rect.height > 0
        else { return whole }
        return (Int(rect.x), Int(rect.y), Int(rect.width), Int(rect.height))
    }

    /// The frame's `irot` and `imir` as one EXIF orientation.
    static func orientation(_ image: avifImage) -> ImageOrientation {
        ImageOrientation(
            anticlockwiseTurns: image.transformFlags & AVIF_TRANSFORM_IROT.rawValue != 0 ? Int(image.irot.angle) : 0,
            mirrorAxis: image.transformFlags & AVIF_TRANSFORM_IMIR.rawValue != 0 ? Int(image.imir.mode) : nil)
    }

    private static func check(_ result: avifResult) throws(LoaderError) {
        switch result {
        case AVIF_RESULT_OK: return
        case AVIF_RESULT_OUT_OF_MEMORY: throw .noMemory
        // A libavif built without dav1d.
        case AVIF_RESULT_NO_CODEC_AVAILABLE: throw .unsupported
        default: throw .decode
        }
    }
}
#endif
