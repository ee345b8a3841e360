#if LAZYIMG_HEIF
import CDe265

/// Decodes HEIC (HEVC-coded HEIF: single pictures and grids of tiles, with alpha) with
/// libde265, reading the container itself.
///
/// libheif 1.15 cannot hand over a picture's YCbCr: its `heif_decode_image` always
/// converts to planes of RGB (and libheif keeps libde265's picture, a copy, the
/// chroma upsampled and the RGB at once: 6 bytes a pixel for an 8-bit 4:2:0 photo).
/// So `HEIFItems` reads the file, `HEICImage` finds what makes the primary image,
/// libde265 decodes each coded picture (`HEVCPicture`), and `YCbCrToRGBA` turns its
/// rows into RGBA for the resampler as libheif would have computed them. A grid is
/// decoded a row of tiles at a time, and each row of tiles freed before the next:
/// what a decode holds is one row of tiles, or one picture, never the canvas.
///
/// Before anything is decoded, `HEIFItems` checks every item's size and derivation
/// against `max_pixels`, `HEICImage` every coded picture's SPS, and `HEICDecodeCost`
/// what libde265 will hold against `max_decode_bytes`.
///
/// `clap` crops the canvas and `irot`/`imir` become the image's orientation, applied by
/// the builder after shrinking, as in `AVIFDecoder`; the Exif Orientation tag is
/// ignored (MIAF: the transformative properties govern). Alpha, decoded first into a
/// plane of 8-bit values for the shown part, is joined to each row.
public final class HEIFDecoder: ImageDecoding {
    public private(set) var lastFailureReason = ""

    public init() {}

    public func decode(_ data: [UInt8], options: DecodeOptions, limits: DecodeLimits) throws(LoaderError) -> DecodedImage {
        lastFailureReason = ""
        return try Self.parse(data, limits: limits) { (image, cost, bytes) throws(LoaderError) -> DecodedImage in
            let crop = image.crop
            let displayed = image.orientation.displayed(width: crop.width, height: crop.height)
            let geometry = OutputGeometry(displayedWidth: displayed.width, height: displayed.height,
                                          orientation: image.orientation, options: options)
            let builder = DecodedImageBuilder(geometry: geometry, format: options.format, sourceWidth: displayed.width,
                                              sourceHeight: displayed.height, isAnimated: false,
                                              opaque: image.alpha == nil)
            if let refusal = limits.workingMemoryRefusal(cost.description,
                                                         needs: cost.bytes.addingSaturating(builder.cropScratchBytes())) {
                lastFailureReason = refusal
                throw .tooLarge
            }
            let alpha = try image.alpha.map { (canvas) throws(LoaderError) in try Self.alphaPlane(canvas, crop, bytes) }
            defer { alpha?.deallocate() }
            return try builder.buildByRows(decodedWidth: crop.width, decodedHeight: crop.height) {
                (addRow) throws(LoaderError) in
                let row = UnsafeMutablePointer<UInt8>.allocate(capacity: crop.width * 4)
                defer { row.deallocate() }
                try Self.forEachRow(of: image.colour, crop, bytes) { (y, tileY, segments) in
                    for segment in segments {
                        segment.converter.convert(row: tileY, columns: segment.columns, into: row + 4 * segment.offset)
                    }
                    if let alpha {
                        Self.join(alpha + (y - crop.y) * crop.width, to: row, width: crop.width,
                                  premultiplied: image.isPremultiplied)
                    }
                    addRow(UnsafeRawPointer(row))
                }
            }
        }
    }

    /// What decoding `data` holds, as `decode` counts it before decoding.
    static func cost(of data: [UInt8]) throws(LoaderError) -> HEICDecodeCost {
        try parse(data, limits: DecodeLimits(maxPixels: Int(UInt32.max))) { (_, cost, _) throws(LoaderError) in cost }
    }

    /// Reads and checks the items against `limits` and hands `body` the primary image,
    /// what decoding it will cost, and the file.
    private static func parse<Result>(_ data: [UInt8], limits: DecodeLimits,
                                      _ body: (HEICImage, HEICDecodeCost, UnsafeBufferPointer<UInt8>) throws(LoaderError)
                                          -> Result) throws(LoaderError) -> Result {
        try data.withUnsafeBufferPointer { (bytes) throws(LoaderError) -> Result in
            guard !bytes.isEmpty else { throw .decode }
            let items = try HEIFItems(parsing: bytes)
            try items.checkImageSizes(in: bytes, maxPixels: limits.maxPixels)
            guard !items.items.values.contains(where: { $0.type == HEIFItems.fourCC("av01") }) else { throw .unsupported }
            let image = try HEICImage(items, in: bytes, maxPixels: limits.maxPixels)
            guard limits.admits(width: image.colour.width, height: image.colour.height) else { throw .tooLarge }
            return try body(image, HEICDecodeCost(image), bytes)
        }
    }

    /// The part of each shown row in one tile: the tile's `columns` (in its own
    /// coordinates), which land `offset` pixels into the row.
    private struct Segment {
        let converter: YCbCrToRGBA
        let columns: Range<Int>
        let offset: Int
    }

    /// Calls `body` with each canvas row `y` of `crop`, in order, its row in its tiles
    /// and the segments of the tiles it crosses. Only tiles that `crop` touches are decoded, a row of them at a
    /// time; a row of tiles is freed before the next is decoded.
    private static func forEachRow(of canvas: HEICImage.Canvas, _ crop: (x: Int, y: Int, width: Int, height: Int),
                                   _ bytes: UnsafeBufferPointer<UInt8>,
                                   _ body: (_ y: Int, _ tileY: Int, _ segments: [Segment]) throws(LoaderError) -> Void)
        throws(LoaderError) {
        let tileWidth = canvas.tileWidth, tileHeight = canvas.tileHeight
        let firstColumn = crop.x / tileWidth, lastColumn = (crop.x + crop.width - 1) / tileWidth
        var tileRow = -1
        var segments: [Segment] = []
        for y in crop.y..<crop.y + crop.height {
            if y / tileHeight != tileRow {
                tileRow = y / tileHeight
                segments = []
                for column in firstColumn...lastColumn {
                    let index = tileRow * canvas.columns + column
                    let picture = try HEVCPicture(canvas.tiles[index], in: bytes)
                    // The size every SPS of the tile declared, which the layout was checked with.
                    guard picture.width == tileWidth, picture.height == tileHeight else { throw .decode }
                    let left = column * tileWidth
                    let columns = max(crop.x, left) - left..<min(crop.x + crop.width, left + tileWidth) - left
                    segments.append(Segment(converter: YCbCrToRGBA(picture, colour: canvas.colours[index] ?? picture.colour),
                                            columns: columns, offset: left + columns.lowerBound - crop.x))
                }
            }
            try body(y, y - tileRow * tileHeight, segments)
        }
    }

    /// The alpha of the shown part of the canvas, 8 bits a pixel, rows back to back.
    private static func alphaPlane(_ canvas: HEICImage.Canvas, _ crop: (x: Int, y: Int, width: Int, height: Int),
                                   _ bytes: UnsafeBufferPointer<UInt8>) throws(LoaderError) -> UnsafeMutablePointer<UInt8> {
        let plane = UnsafeMutablePointer<UInt8>.allocate(capacity: crop.width * crop.height)
        do {
            try forEachRow(of: canvas, crop, bytes) { (y, tileY, segments) in
                for segment in segments {
                    segment.converter.alpha(row: tileY, columns: segment.columns,
                                            into: plane + (y - crop.y) * crop.width + segment.offset)
                }
            }
        } catch {
            plane.deallocate()
            throw error
        }
        return plane
    }

    /// Puts `alpha` into the RGBA row; colour that was premultiplied comes out straight.
    private static func join(_ alpha: UnsafePointer<UInt8>, to row: UnsafeMutablePointer<UInt8>, width: Int,
                             premultiplied: Bool) {
        for x in 0..<width {
            let pixel = row + 4 * x, opacity = alpha[x]
            pixel[3] = opacity
            guard premultiplied && opacity < 255 else { continue }
            for channel in 0..<3 {
                pixel[channel] = opacity == 0 ? 0
                    : UInt8(min(255, (Int(pixel[channel]) * 255 + Int(opacity) / 2) / Int(opacity)))
            }
        }
    }
}
#endif
