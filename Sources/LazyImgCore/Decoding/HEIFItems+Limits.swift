extension HEIFItems {
    /// The most cells one grid may have. libavif 0.11 keeps an AV1 decoder for every cell
    /// until the grid is put together (docs/pending/avif-heic.md measures what each
    /// costs), and libheif 1.15 decodes the cells one after another, each with a new
    /// libde265 decoder and thread. 256 cells hold a 50-megapixel photo in the
    /// 512-pixel tiles cameras write.
    static let maxGridCells = 256

    private static let grid = fourCC("grid"), overlay = fourCC("iovl"), identity = fourCC("iden")
    private static let hevc = fourCC("hvc1")
    /// The item types libheif 1.15 and libavif 0.11 take for images.
    private static let imageTypes: Set<UInt32> = [hevc, fourCC("av01"), grid, overlay, identity]

    /// Refuses what the libraries would allocate past the limits: `.tooLarge` for a grid
    /// or overlay canvas of more than `maxPixels`, an item whose `ispe` is larger than
    /// `fitsWithCodingBlocks` allows, or a grid of more than `maxGridCells` cells;
    /// `.decode` for a derivation libheif would follow without bound (a grid or overlay
    /// of derived images, an identity of an identity) or that names what is no image
    /// (libheif 1.15 asserts that an identity's input is one, and Debian builds it with
    /// assertions: the process would abort), and for an item whose extents add up to
    /// more than the file (libheif copies them). The primary image's own size is
    /// checked exactly by the decoders, through the libraries.
    func checkImageSizes(in bytes: UnsafeBufferPointer<UInt8>, maxPixels: Int) throws(LoaderError) {
        for (id, item) in items {
            // Each extent lies inside the file, and there are at most 65535 of them.
            guard item.extents.reduce(0, { $0 + $1.count }) <= bytes.count else { throw .decode }
            if let extents = property(Self.fourCC("ispe"), of: item) {
                // ImageSpatialExtentsProperty: a FullBox, then width and height in 32 bits.
                var reader = BigEndianReader(bytes, extents)
                guard reader.skip(4), let width = reader.u32(), let height = reader.u32() else { throw .decode }
                guard Self.fitsWithCodingBlocks(width: width, height: height, maxPixels: maxPixels) else {
                    throw .tooLarge
                }
            }
            switch item.type {
            case Self.grid:
                // ImageGrid: version, flags, rows - 1, columns - 1, then the canvas size
                // in 16 bits, or 32 when flags bit 0 is set.
                guard let header = prefix(of: item, 4, in: bytes) else { throw .decode }
                guard (Int(header[2]) + 1) * (Int(header[3]) + 1) <= Self.maxGridCells else { throw .tooLarge }
                try checkCanvas(of: item, sizeAt: 4, wide: header[1] & 1 != 0, in: bytes, maxPixels: maxPixels)
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

    /// Refuses (`.tooLarge`) an HEVC picture larger than `fitsWithCodingBlocks` allows,
    /// declared by a sequence parameter set in any `hvcC` or inside any `hvc1` item's
    /// bytes: libheif hands libde265 both, and libde265 allocates what they say (up to
    /// 65535 a side). `.decode` for NAL units that do not fit where they are.
    func checkHEVCPictures(in bytes: UnsafeBufferPointer<UInt8>, maxPixels: Int) throws(LoaderError) {
        for configuration in properties where configuration.type == Self.fourCC("hvcC") {
            // HEVCDecoderConfigurationRecord: 22 bytes of fields, then arrays of
            // NAL units, each with a 16-bit length.
            var reader = BigEndianReader(bytes, configuration.payload)
            guard reader.skip(22), let arrayCount = reader.u8() else { throw .decode }
            for _ in 0..<arrayCount {
                guard reader.skip(1), let unitCount = reader.u16() else { throw .decode }
                for _ in 0..<unitCount {
                    guard let length = reader.u16() else { throw .decode }
                    let start = reader.position
                    guard reader.skip(length) else { throw .decode }
                    try Self.checkNALUnit(bytes[start..<start + length], maxPixels: maxPixels)
                }
            }
        }
        for item in items.values where item.type == Self.hevc {
            // Several extents are joined, as libheif joins them; they add up to at most
            // the file's size (checkDerivedImages).
            if item.extents.count == 1 {
                try Self.checkSample(bytes[item.extents[0]], maxPixels: maxPixels)
            } else {
                try Self.checkSample(item.extents.flatMap { bytes[$0] }, maxPixels: maxPixels)
            }
        }
    }

    /// A sample as libheif passes it on: NAL units, each after a 4-byte length.
    private static func checkSample<Bytes: RandomAccessCollection<UInt8>>(_ data: Bytes, maxPixels: Int)
        throws(LoaderError) where Bytes.Index == Int {
        var position = data.startIndex
        while position < data.endIndex {
            guard data.endIndex - position >= 4 else { throw .decode }
            let length = data[position..<position + 4].reduce(0) { $0 << 8 | Int($1) }
            position += 4
            guard length <= data.endIndex - position else { throw .decode }
            try checkNALUnit(data[position..<position + length], maxPixels: maxPixels)
            position += length
        }
    }

    private static func checkNALUnit<Bytes: RandomAccessCollection<UInt8>>(_ unit: Bytes, maxPixels: Int)
        throws(LoaderError) {
        guard let first = unit.first, HEVCPictureSize.nalType(first) == HEVCPictureSize.spsType else { return }
        guard let size = HEVCPictureSize.of(sequenceParameterSet: ArraySlice(unit.prefix(HEVCPictureSize.bytesRead))) else {
            throw .decode
        }
        guard fitsWithCodingBlocks(width: size.width, height: size.height, maxPixels: maxPixels) else {
            throw .tooLarge
        }
    }

    /// Whether a coded picture or tile of `width` x `height` may belong to an image of
    /// at most `maxPixels`. Coded pictures cover whole coding blocks and crop the rest
    /// (x265 codes 200 x 200 as 208 x 208; libheif 1.15 writes a 60 x 30 image as a
    /// 64 x 32 tile cropped by a grid), so each side may be up to one largest block
    /// (64) longer than the image's.
    static func fitsWithCodingBlocks(width: Int, height: Int, maxPixels: Int) -> Bool {
        let padding = HEVCPictureSize.largestCodingBlock
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
