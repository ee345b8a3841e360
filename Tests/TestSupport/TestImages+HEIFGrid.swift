#if LAZYIMG_HEIF
@_spi(Testing) import LazyImgCore

/// A grid HEIC: `columns` x `rows` tiles of `tileWidth` x `tileHeight`, tile i showing
/// `colours[i]`, as cameras store photos; `canvas` may crop the last row and column.
/// libheif 1.15 writes no grids, so each tile
/// is a HEIC libheif encodes, taken apart with `HEIFItems`; its properties and bytes
/// become one tile item of a grid built here (ISO/IEC 23008-12 6.6.2.3). Returns []
/// when a tile cannot be made. `overlay` lays the same tiles out as an overlay (`iovl`,
/// 6.6.2.4) at the grid's places instead.
public func makeGridHEIC(columns: Int, rows: Int, tileWidth: Int, tileHeight: Int, colours: [[UInt8]],
                         options: HEICTestOptions = HEICTestOptions(),
                         canvas: (width: Int, height: Int)? = nil, overlay: Bool = false) -> [UInt8] {
    let canvas = canvas ?? (columns * tileWidth, rows * tileHeight)
    var tiles: [CodedTile] = []
    for colour in colours {
        let file = makeHEIC(width: tileWidth, height: tileHeight,
                            pattern: .solid(red: colour[0], green: colour[1], blue: colour[2]), options: options)
        guard let tile = CodedTile(file) else { return [] }
        tiles.append(tile)
    }
    guard tiles.count == columns * rows else { return [] }
    let size = bigEndian(canvas.width, bytes: 2) + bigEndian(canvas.height, bytes: 2)
    // Version and flags 0 (16-bit fields); an overlay's fill colour, then each tile's place.
    let gridData = overlay
        ? [UInt8](repeating: 0, count: 10) + size + tiles.indices.flatMap {
            bigEndian($0 % columns * tileWidth, bytes: 2) + bigEndian($0 / columns * tileHeight, bytes: 2)
        }
        : [0, 0, UInt8(rows - 1), UInt8(columns - 1)] + size

    let ftyp = isoBox("ftyp", Array("heic".utf8) + bigEndian(0, bytes: 4) + Array("mif1heic".utf8))
    // The tiles' bytes follow the meta box in mdat; its size does not depend on where.
    func meta(mdatStart: Int) -> [UInt8] {
        let tileIDs = tiles.indices.map { $0 + 2 }
        var properties: [[UInt8]] = []
        var associations: [[Int]] = []
        for tile in tiles {
            associations.append(tile.properties.indices.map { properties.count + $0 + 1 })
            properties += tile.properties
        }
        properties.append(isoFullBox("ispe", 0, bigEndian(canvas.width, bytes: 4) + bigEndian(canvas.height, bytes: 4)))
        associations.insert([properties.count], at: 0)
        // ipma with flags 1: 16-bit property indexes.
        let ipma = isoFullBox("ipma", 0, bigEndian(associations.count, bytes: 4)
            + associations.enumerated().flatMap { item, indexes in
                bigEndian(item + 1, bytes: 2) + [UInt8(indexes.count)] + indexes.flatMap { bigEndian($0, bytes: 2) }
            }, flags: 1)
        // iloc version 1: 4-byte offsets and lengths; the grid's data lies in idat.
        var offset = mdatStart + 8
        var locations = bigEndian(1, bytes: 2) + bigEndian(1, bytes: 2) + bigEndian(0, bytes: 2)
            + bigEndian(1, bytes: 2) + bigEndian(0, bytes: 4) + bigEndian(gridData.count, bytes: 4)
        for (tile, id) in zip(tiles, tileIDs) {
            locations += bigEndian(id, bytes: 2) + bigEndian(0, bytes: 2) + bigEndian(0, bytes: 2)
                + bigEndian(1, bytes: 2) + bigEndian(offset, bytes: 4) + bigEndian(tile.data.count, bytes: 4)
            offset += tile.data.count
        }
        let infos = [isoFullBox("infe", 2, bigEndian(1, bytes: 2) + bigEndian(0, bytes: 2) + Array((overlay ? "iovl" : "grid").utf8) + [0])]
            + tileIDs.map { isoFullBox("infe", 2, bigEndian($0, bytes: 2) + bigEndian(0, bytes: 2) + Array("hvc1".utf8) + [0]) }
        return isoFullBox("meta", 0,
            isoFullBox("hdlr", 0, bigEndian(0, bytes: 4) + Array("pict".utf8) + [UInt8](repeating: 0, count: 13))
            + isoFullBox("pitm", 0, bigEndian(1, bytes: 2))
            + isoFullBox("iloc", 1, [0x44, 0x00] + bigEndian(tiles.count + 1, bytes: 2) + locations)
            + isoFullBox("iinf", 0, bigEndian(infos.count, bytes: 2) + infos.joined())
            + isoFullBox("iref", 0, isoBox("dimg", bigEndian(1, bytes: 2) + bigEndian(tiles.count, bytes: 2)
                                                     + tileIDs.flatMap { bigEndian($0, bytes: 2) }))
            + isoBox("iprp", isoBox("ipco", Array(properties.joined())) + ipma)
            + isoBox("idat", gridData))
    }
    let mdatStart = ftyp.count + meta(mdatStart: 0).count
    return ftyp + meta(mdatStart: mdatStart) + isoBox("mdat", Array(tiles.map(\.data).joined()))
}

/// The one coded image of a HEIC libheif wrote: its properties as whole boxes (hvcC,
/// ispe, colour) and its bytes.
private struct CodedTile {
    var properties: [[UInt8]] = []
    var data: [UInt8] = []

    init?(_ file: [UInt8]) {
        let taken: CodedTile? = file.withUnsafeBufferPointer { bytes in
            guard let items = try? HEIFItems(parsing: bytes),
                  let item = items.items.values.first(where: { $0.type == HEIFItems.fourCC("hvc1") })
            else { return nil }
            var tile = CodedTile(properties: [], data: [])
            // libheif writes every property with a plain 8-byte header.
            tile.properties = item.properties.map { Array(bytes[items.properties[$0].payload.lowerBound - 8..<items.properties[$0].payload.upperBound]) }
            tile.data = item.extents.flatMap { Array(bytes[$0]) }
            return tile
        }
        guard let taken else { return nil }
        self = taken
    }

    private init(properties: [[UInt8]], data: [UInt8]) {
        self.properties = properties
        self.data = data
    }
}
#endif
