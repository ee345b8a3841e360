/// What the primary image of a HEIC file is made of, read from its items before
/// anything is decoded: the coded pictures of its colour and of its alpha, how they
/// are laid out, and how the result is cropped and turned.
///
/// The primary item is an `hvc1` picture, a `grid` of them, or an `iden` showing one
/// of those with transformations of its own (its input then may have none). Alpha is
/// the auxiliary image (`auxl`, of an alpha `auxC` type) of the primary item; libheif
/// 1.15 takes it only when it is the colour's size, and so does this. Its own
/// transformative properties are not read: MIAF gives an alpha image those of its
/// master, which are applied to both together. Overlays (`iovl`) and AV1 are refused
/// as unsupported.
struct HEICImage {
    /// Coded pictures laid out in a canvas: one, or a grid's tiles in rows.
    struct Canvas {
        /// Row by row, `columns` to a row.
        let tiles: [HEVCCodedItem]
        /// Each tile's `nclx` colour property (its own, else the grid's); nil where its
        /// SPS's video usability information is to be used.
        let colours: [HEIFColour?]
        let columns: Int
        let tileWidth: Int
        let tileHeight: Int
        let width: Int
        let height: Int

        var rows: Int { tiles.count / columns }
    }

    let colour: Canvas
    let alpha: Canvas?
    /// The colour is multiplied by the alpha (`prem`).
    let isPremultiplied: Bool
    /// The part of the canvas shown (`clap`), before it is turned.
    let crop: (x: Int, y: Int, width: Int, height: Int)
    let orientation: ImageOrientation

    private static let hevc = HEIFItems.fourCC("hvc1"), grid = HEIFItems.fourCC("grid")
    private static let identity = HEIFItems.fourCC("iden")

    /// Throws `.decode` for a structure that does not hold together (no primary item,
    /// a grid whose tiles do not cover its canvas or differ in size), `.unsupported`
    /// for overlays and AV1, `.tooLarge` for a coded picture past `maxPixels`.
    init(_ items: HEIFItems, in bytes: UnsafeBufferPointer<UInt8>, maxPixels: Int) throws(LoaderError) {
        guard let primary = items.primary, let shown = items.items[primary] else { throw .decode }
        var coded = primary
        if shown.type == Self.identity {
            guard let inputs = items.inputs[primary], inputs.count == 1, let input = items.items[inputs[0]] else {
                throw .decode
            }
            guard Self.transformations(of: input, in: items).isEmpty else { throw .unsupported }
            coded = inputs[0]
        }
        colour = try Self.canvas(coded, of: items, in: bytes, maxPixels: maxPixels)

        let alphaItem = items.alphaItem(of: primary, alsoOf: coded, in: bytes)
        if let alphaItem {
            let canvas = try Self.canvas(alphaItem, of: items, in: bytes, maxPixels: maxPixels)
            alpha = canvas.width == colour.width && canvas.height == colour.height ? canvas : nil
        } else {
            alpha = nil
        }
        let premultiplied = items.references[HEIFItems.fourCC("prem")] ?? [:]
        isPremultiplied = alphaItem.map { (premultiplied[primary] ?? []).contains($0) || (premultiplied[coded] ?? []).contains($0) }
            ?? false

        var crop = (x: 0, y: 0, width: colour.width, height: colour.height)
        var turns = 0, mirror: Int?
        for (type, payload) in Self.transformations(of: shown, in: items) {
            switch type {
            case HEIFItems.fourCC("clap"):
                crop = try HEIFCleanAperture(payload, in: bytes).rectangle(imageWidth: colour.width,
                                                                           imageHeight: colour.height)
            case HEIFItems.fourCC("irot"):
                guard let angle = payload.first.map({ Int(bytes[$0]) }) else { throw .decode }
                turns = angle & 3
            default:
                guard let axis = payload.first.map({ Int(bytes[$0]) }) else { throw .decode }
                mirror = axis & 1
            }
        }
        self.crop = crop
        orientation = ImageOrientation(anticlockwiseTurns: turns, mirrorAxis: mirror)
    }

    /// The item's transformative properties, in the order `ipma` lists them.
    private static func transformations(of item: HEIFItems.Item, in items: HEIFItems) -> [(UInt32, Range<Int>)] {
        let types: Set<UInt32> = [HEIFItems.fourCC("clap"), HEIFItems.fourCC("irot"), HEIFItems.fourCC("imir")]
        return item.properties.compactMap { index in
            guard index < items.properties.count, types.contains(items.properties[index].type) else { return nil }
            return items.properties[index]
        }
    }

    /// The canvas item `id` makes: an `hvc1` picture, or a grid of them.
    private static func canvas(_ id: Int, of items: HEIFItems, in bytes: UnsafeBufferPointer<UInt8>,
                               maxPixels: Int) throws(LoaderError) -> Canvas {
        guard let item = items.items[id] else { throw .decode }
        let ownColour = nclx(of: item, in: items, bytes)
        switch item.type {
        case hevc:
            let picture = try codedPicture(item, of: items, in: bytes, maxPixels: maxPixels)
            let size = picture.shownSize
            return Canvas(tiles: [picture], colours: [ownColour], columns: 1, tileWidth: size.width,
                          tileHeight: size.height, width: size.width, height: size.height)
        case grid:
            guard let (rows, columns, width, height) = items.gridLayout(of: item, in: bytes),
                  let inputs = items.inputs[id], inputs.count == rows * columns, width > 0, height > 0
            else { throw .decode }
            var tiles: [HEVCCodedItem] = [], colours: [HEIFColour?] = []
            for input in inputs {
                guard let tile = items.items[input], tile.type == hevc else { throw .decode }
                tiles.append(try codedPicture(tile, of: items, in: bytes, maxPixels: maxPixels))
                colours.append(nclx(of: tile, in: items, bytes) ?? ownColour)
            }
            // Tiles of one size that cover the canvas, as the grid's definition asks
            // (ISO/IEC 23008-12 6.6.2.3); the canvas crops the last row and column.
            let size = tiles[0].shownSize
            guard tiles.allSatisfy({ $0.shownSize == size }), columns * size.width >= width,
                  rows * size.height >= height
            else { throw .decode }
            return Canvas(tiles: tiles, colours: colours, columns: columns, tileWidth: size.width,
                          tileHeight: size.height, width: width, height: height)
        case HEIFItems.fourCC("iovl"), HEIFItems.fourCC("av01"):
            throw .unsupported
        default:
            throw .decode
        }
    }

    private static func codedPicture(_ item: HEIFItems.Item, of items: HEIFItems, in bytes: UnsafeBufferPointer<UInt8>,
                                     maxPixels: Int) throws(LoaderError) -> HEVCCodedItem {
        let picture = try HEVCCodedItem(item, of: items, in: bytes)
        let sequence = picture.largestSequence
        guard HEIFItems.fitsWithCodingBlocks(width: sequence.codedWidth, height: sequence.codedHeight,
                                             maxPixels: maxPixels)
        else { throw .tooLarge }
        return picture
    }

    /// The item's first `nclx` colour property (it may also have an ICC one).
    private static func nclx(of item: HEIFItems.Item, in items: HEIFItems, _ bytes: UnsafeBufferPointer<UInt8>) -> HEIFColour? {
        items.allProperties(HEIFItems.fourCC("colr"), of: item).lazy
            .compactMap { HEIFColour(colourProperty: $0, in: bytes) }.first
    }
}
