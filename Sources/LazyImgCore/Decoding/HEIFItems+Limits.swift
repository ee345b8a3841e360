extension HEIFItems {
    /// The most cells one grid may have. libavif 0.11 keeps an AV1 decoder for every cell
    /// until the grid is put together (`AVIFDecodeCost`), and `HEIFDecoder` keeps a
    /// libde265 decoder for each tile of a row. 256 cells hold a 50-megapixel photo in
    /// the 512-pixel tiles cameras write.
    static let maxGridCells = 256

    private static let grid = fourCC("grid"), overlay = fourCC("iovl"), identity = fourCC("iden")
    /// The item types HEIF and AVIF decoders take for images.
    private static let imageTypes: Set<UInt32> = [fourCC("hvc1"), fourCC("av01"), grid, overlay, identity]

    /// Refuses what the decoders would allocate past the limits: `.tooLarge` for a grid
    /// or overlay canvas of more than `maxPixels`, an item whose `ispe` is larger than
    /// `fitsWithCodingBlocks` allows, or a grid of more than `maxGridCells` cells;
    /// `.decode` for a derivation that could be followed without bound (a grid or
    /// overlay of derived images, an identity of an identity) or that names what is no
    /// image (libheif 1.15, which the tests still decode with, asserts that an
    /// identity's input is one), and for an item whose extents add up to more than the
    /// file (they are copied). The primary image's own size is checked exactly by the
    /// decoders.
    func checkImageSizes(in bytes: UnsafeBufferPointer<UInt8>, maxPixels: Int) throws(LoaderError) {
        for (id, item) in items {
            // Each extent lies inside the file, and there are at most 65535 of them.
            guard item.extents.reduce(0, { $0 + $1.count }) <= bytes.count else { throw .decode }
            if property(Self.fourCC("ispe"), of: item) != nil {
                guard let (width, height) = spatialExtents(of: item, in: bytes) else { throw .decode }
                guard Self.fitsWithCodingBlocks(width: width, height: height, maxPixels: maxPixels) else {
                    throw .tooLarge
                }
            }
            switch item.type {
            case Self.grid:
                guard let layout = gridLayout(of: item, in: bytes) else { throw .decode }
                guard layout.rows * layout.columns <= Self.maxGridCells,
                      DecodeLimits(maxPixels: maxPixels).admits(width: layout.width, height: layout.height)
                else { throw .tooLarge }
            case Self.overlay:
                // ImageOverlay: version, flags, four 16-bit fill values, then the canvas.
                guard let header = prefix(of: item, 2, in: bytes) else { throw .decode }
                try checkCanvas(of: item, sizeAt: 10, wide: header[1] & 1 != 0, in: bytes, maxPixels: maxPixels)
            default:
                break
            }
            let forbidden: Set<UInt32> = item.type == Self.identity ? [Self.identity]
                : item.type == Self.grid || item.type == Self.overlay ? [Self.grid, Self.overlay, Self.identity] : []
            for input in inputs[id] ?? [] {
                guard let type = items[input]?.type, Self.imageTypes.contains(type), !forbidden.contains(type) else {
                    throw .decode
                }
            }
        }
    }

    /// Whether a coded picture or tile of `width` x `height` may belong to an image of
    /// at most `maxPixels`. Coded pictures cover whole coding blocks and crop the rest
    /// (x265 codes 200 x 200 as 208 x 208; libheif 1.15 writes a 60 x 30 image as a
    /// 64 x 32 tile cropped by a grid), so each side may be up to one largest block
    /// (64) longer than the image's.
    static func fitsWithCodingBlocks(width: Int, height: Int, maxPixels: Int) -> Bool {
        let padding = HEVCSequenceParameters.largestCodingBlock
        guard case (let pixels, false) = max(0, width - padding).multipliedReportingOverflow(by: max(0, height - padding))
        else { return false }
        return pixels <= maxPixels
    }

    private func checkCanvas(of item: Item, sizeAt offset: Int, wide: Bool, in bytes: UnsafeBufferPointer<UInt8>,
                             maxPixels: Int) throws(LoaderError) {
        let fieldSize = wide ? 4 : 2
        guard let header = prefix(of: item, offset + 2 * fieldSize, in: bytes) else { throw .decode }
        let field = { (start: Int) in header[start..<start + fieldSize].reduce(0) { $0 << 8 | Int($1) } }
        guard DecodeLimits(maxPixels: maxPixels).admits(width: field(offset), height: field(offset + fieldSize)) else {
            throw .tooLarge
        }
    }
}
