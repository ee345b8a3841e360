extension HEIFItems {
    /// A `grid` item's layout (ISO/IEC 23008-12 6.6.2.3): version, flags, rows - 1,
    /// columns - 1, then the canvas size in 16 bits, or 32 when flags bit 0 is set. Nil
    /// when its bytes are too few.
    func gridLayout(of item: Item, in bytes: UnsafeBufferPointer<UInt8>)
        -> (rows: Int, columns: Int, width: Int, height: Int)? {
        guard let header = prefix(of: item, 4, in: bytes) else { return nil }
        let fieldSize = header[1] & 1 == 0 ? 2 : 4
        guard let layout = prefix(of: item, 4 + 2 * fieldSize, in: bytes) else { return nil }
        let field = { (start: Int) in layout[start..<start + fieldSize].reduce(0) { $0 << 8 | Int($1) } }
        return (Int(header[2]) + 1, Int(header[3]) + 1, field(4), field(4 + fieldSize))
    }

    /// The alpha image of `master` (or of `alsoOf`, the image an `iden` master shows): an
    /// auxiliary image (`auxl`) whose `auxC` says alpha, the lowest-numbered if several.
    func alphaItem(of master: Int, alsoOf other: Int? = nil, in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        let auxiliaries = references[Self.fourCC("auxl")] ?? [:]
        return auxiliaries.keys.sorted().first { id in
            guard let masters = auxiliaries[id], masters.contains(master) || other.map(masters.contains) == true,
                  let item = items[id], let type = property(Self.fourCC("auxC"), of: item)
            else { return false }
            return Self.alphaTypes.contains(Self.auxiliaryType(type, in: bytes))
        }
    }

    /// The `auxC` types of alpha: HEVC's, MIAF's (AVIF's), AVC's.
    private static let alphaTypes = ["urn:mpeg:hevc:2015:auxid:1", "urn:mpeg:mpegB:cicp:systems:auxiliary:alpha",
                                     "urn:mpeg:avc:2015:auxid:1"]

    /// `auxC`: a FullBox, then the type as a string ending in a zero byte.
    private static func auxiliaryType(_ payload: Range<Int>, in bytes: UnsafeBufferPointer<UInt8>) -> String {
        guard payload.count > 4 else { return "" }
        return String(decoding: bytes[(payload.lowerBound + 4)..<payload.upperBound].prefix { $0 != 0 }, as: UTF8.self)
    }

    /// The item's `ispe` (a FullBox, then width and height in 32 bits), if it has one.
    func spatialExtents(of item: Item, in bytes: UnsafeBufferPointer<UInt8>) -> (width: Int, height: Int)? {
        guard let extents = property(Self.fourCC("ispe"), of: item) else { return nil }
        var reader = BigEndianReader(bytes, extents)
        guard reader.skip(4), let width = reader.u32(), let height = reader.u32() else { return nil }
        return (width, height)
    }
}
