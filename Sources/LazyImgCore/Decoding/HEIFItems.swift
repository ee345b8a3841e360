/// The items of an ISO-BMFF image file (HEIF, AVIF): what each one is, where its bytes
/// lie, its properties, and which derived images are made of which.
///
/// libavif 0.11 sizes buffers from parts of a file that it does not check against each
/// other (as libheif 1.15 did: a grid's canvas against its `ispe`, a coded picture's
/// size against either), so the decoders read this first and refuse what would cost
/// more than `max_pixels` (`HEIFItems+Limits`); `HEIFDecoder` reads HEIC files with it
/// alone. Only the `meta` box is read, and the walk stops there: bytes after it (the
/// rest of `mdat`) are the codecs' to judge. A file without `meta` (an AVIF sequence in
/// tracks) has no items.
///
/// SPI for the tests' HEIC grid builder, which takes coded tiles apart with it.
@_spi(Testing) public struct HEIFItems {
    public struct Item {
        public internal(set) var type: UInt32 = 0
        /// The item's bytes, in order: ranges of the file.
        public internal(set) var extents: [Range<Int>] = []
        /// Indexes into `properties` (`ipma`).
        public internal(set) var properties: [Int] = []
    }

    public private(set) var items: [Int: Item] = [:]
    /// The primary image (`pitm`); nil when the file names none.
    private(set) var primary: Int?
    /// The references of each kind (`iref`): from an item to others, in order. `dimg`
    /// leads from a derived image to its inputs, `auxl` from an auxiliary image (alpha)
    /// to its master, `prem` from an image to the alpha it is premultiplied by.
    private(set) var references: [UInt32: [Int: [Int]]] = [:]
    /// A derived image's inputs (its `dimg` references), in order.
    var inputs: [Int: [Int]] { references[Self.fourCC("dimg")] ?? [:] }
    /// The boxes of `ipco`, in order: each property's type and payload.
    public private(set) var properties: [(type: UInt32, payload: Range<Int>)] = []

    /// As libheif's MAX_ILOC_ITEMS and MAX_ILOC_EXTENTS_PER_ITEM: a file listing more
    /// items, extents or references is refused, so a hostile one cannot make the
    /// tables here large (an extent may take no bytes at all to list).
    static let maxItems = 20_000
    static let maxExtentsPerItem = 32

    /// Reads the `meta` box of `bytes`; throws `.decode` when its structure does not
    /// hold together (a box running past its parent, an item's bytes outside the file).
    public init(parsing bytes: UnsafeBufferPointer<UInt8>) throws(LoaderError) {
        var position = 0
        while position < bytes.count {
            guard let box = Self.box(at: position, in: bytes, within: 0..<bytes.count) else {
                // A cut-off box ends the walk, unless it is the meta box itself.
                var header = BigEndianReader(bytes, position..<bytes.count)
                if header.skip(4), header.u32() == Int(Self.fourCC("meta")) { throw .decode }
                return
            }
            if box.type == Self.fourCC("meta") {
                // A FullBox: version and flags before the children.
                guard box.payload.count >= 4 else { throw .decode }
                try parseMeta(bytes, box.payload.lowerBound + 4..<box.payload.upperBound)
                return
            }
            position = box.payload.upperBound
        }
    }

    /// The item's first `count` bytes, across its extents; nil when it has fewer.
    func prefix(of item: Item, _ count: Int, in bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var result: [UInt8] = []
        for extent in item.extents where result.count < count {
            result += bytes[extent.lowerBound..<min(extent.upperBound, extent.lowerBound + count - result.count)]
        }
        return result.count == count ? result : nil
    }

    public static func fourCC(_ text: StaticString) -> UInt32 {
        text.withUTF8Buffer { $0.reduce(0) { $0 << 8 | UInt32($1) } }
    }

    /// The box that starts at `position`, when its header and payload fit in `range`.
    static func box(at position: Int, in bytes: UnsafeBufferPointer<UInt8>,
                    within range: Range<Int>) -> (type: UInt32, payload: Range<Int>)? {
        var reader = BigEndianReader(bytes, position..<range.upperBound)
        guard var size = reader.u32(), let field = reader.u32() else { return nil }
        let type = UInt32(field)
        if size == 1 {
            guard let large = reader.uint(size: 8) else { return nil }
            size = large
        } else if size == 0 {
            size = range.upperBound - position  // to the end of the parent
        }
        if type == fourCC("uuid") && !reader.skip(16) { return nil }
        let headerSize = reader.position - position
        guard size >= headerSize, size <= range.upperBound - position else { return nil }
        return (type, reader.position..<position + size)
    }

    /// Calls `body` for each box in `range`; false when one does not fit.
    private static func forEachBox(in bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>,
                                   _ body: (UInt32, Range<Int>) throws(LoaderError) -> Void) throws(LoaderError) {
        var position = range.lowerBound
        while position < range.upperBound {
            guard let box = box(at: position, in: bytes, within: range) else { throw .decode }
            try body(box.type, box.payload)
            position = box.payload.upperBound
        }
    }

    private struct Location {
        var constructionMethod: Int
        var baseOffset: Int
        var extents: [(offset: Int, length: Int)]
    }

    private mutating func parseMeta(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) throws(LoaderError) {
        var locations: [Int: Location] = [:]
        var idat: Range<Int>?
        try Self.forEachBox(in: bytes, range) { (type, payload) throws(LoaderError) in
            switch type {
            case Self.fourCC("iinf"): try parseItemInfo(bytes, payload)
            case Self.fourCC("iloc"): locations = try Self.parseLocations(bytes, payload)
            case Self.fourCC("iref"): try parseReferences(bytes, payload)
            case Self.fourCC("pitm"): primary = try Self.parsePrimary(bytes, payload)
            case Self.fourCC("iprp"): try parseProperties(bytes, payload)
            case Self.fourCC("idat"): idat = payload
            default: break
            }
        }
        for (id, location) in locations {
            items[id, default: Item()].extents = try Self.resolve(location, fileSize: bytes.count, idat: idat)
        }
        guard items.count <= Self.maxItems else { throw .decode }
    }

    /// `iinf`: one `infe` per item; versions 2 and 3 carry the item's type.
    private mutating func parseItemInfo(_ bytes: UnsafeBufferPointer<UInt8>, _ payload: Range<Int>) throws(LoaderError) {
        var reader = BigEndianReader(bytes, payload)
        guard let version = reader.u8(), reader.skip(3), reader.skip(version == 0 ? 2 : 4) else { throw .decode }
        try Self.forEachBox(in: bytes, reader.position..<payload.upperBound) { (type, entry) throws(LoaderError) in
            guard type == Self.fourCC("infe") else { return }
            var infe = BigEndianReader(bytes, entry)
            guard let entryVersion = infe.u8(), infe.skip(3) else { throw .decode }
            guard entryVersion >= 2 else { return }
            guard let id = infe.uint(size: entryVersion == 2 ? 2 : 4), infe.skip(2), let itemType = infe.u32() else {
                throw .decode
            }
            guard items.count < Self.maxItems || items[id] != nil else { throw .decode }
            items[id, default: Item()].type = UInt32(itemType)
        }
    }

    /// `pitm`: a FullBox, then the item's ID in 16 bits (version 0) or 32.
    private static func parsePrimary(_ bytes: UnsafeBufferPointer<UInt8>, _ payload: Range<Int>) throws(LoaderError) -> Int {
        var reader = BigEndianReader(bytes, payload)
        guard let version = reader.u8(), reader.skip(3), let id = reader.uint(size: version == 0 ? 2 : 4) else {
            throw .decode
        }
        return id
    }

    /// `iref`: boxes named by the kind of reference, each from one item to others.
    private mutating func parseReferences(_ bytes: UnsafeBufferPointer<UInt8>, _ payload: Range<Int>) throws(LoaderError) {
        var reader = BigEndianReader(bytes, payload)
        guard let version = reader.u8(), reader.skip(3) else { throw .decode }
        let idSize = version == 0 ? 2 : 4
        var count = references.values.reduce(0) { $0 + $1.values.reduce(0) { $0 + $1.count } }
        try Self.forEachBox(in: bytes, reader.position..<payload.upperBound) { (type, reference) throws(LoaderError) in
            var fields = BigEndianReader(bytes, reference)
            guard let from = fields.uint(size: idSize), let toCount = fields.u16() else { throw .decode }
            count += max(1, toCount)
            guard count <= Self.maxItems else { throw .decode }
            var to: [Int] = []
            for _ in 0..<toCount {
                guard let id = fields.uint(size: idSize) else { throw .decode }
                to.append(id)
            }
            references[type, default: [:]][from, default: []] += to
        }
    }

    /// `iprp`: the properties (`ipco`) and which items have which (`ipma`).
    private mutating func parseProperties(_ bytes: UnsafeBufferPointer<UInt8>, _ payload: Range<Int>) throws(LoaderError) {
        try Self.forEachBox(in: bytes, payload) { (type, container) throws(LoaderError) in
            switch type {
            case Self.fourCC("ipco"):
                try Self.forEachBox(in: bytes, container) { (property, contents) throws(LoaderError) in
                    guard properties.count < Self.maxItems else { throw .decode }
                    properties.append((property, contents))
                }
            case Self.fourCC("ipma"):
                try parseAssociations(bytes, container)
            default:
                break
            }
        }
    }

    /// `ipma`: per item, 1-based indexes into `ipco` (0 means none), each with an
    /// "essential" bit.
    private mutating func parseAssociations(_ bytes: UnsafeBufferPointer<UInt8>, _ payload: Range<Int>) throws(LoaderError) {
        var reader = BigEndianReader(bytes, payload)
        guard let version = reader.u8(), reader.u16() != nil, let flags = reader.u8(), let count = reader.u32(),
              count <= Self.maxItems
        else { throw .decode }
        for _ in 0..<count {
            guard let id = reader.uint(size: version < 1 ? 2 : 4), let associations = reader.u8() else { throw .decode }
            for _ in 0..<associations {
                guard let field = reader.uint(size: flags & 1 == 0 ? 1 : 2) else { throw .decode }
                let index = field & (flags & 1 == 0 ? 0x7F : 0x7FFF)
                if index > 0 { items[id, default: Item()].properties.append(index - 1) }
            }
        }
    }

    /// The payload of the item's first property of `type`, if it has one.
    func property(_ type: UInt32, of item: Item) -> Range<Int>? {
        allProperties(type, of: item).first
    }

    /// The payloads of the item's properties of `type`, in the order `ipma` lists them.
    func allProperties(_ type: UInt32, of item: Item) -> [Range<Int>] {
        item.properties.filter { $0 < properties.count && properties[$0].type == type }.map { properties[$0].payload }
    }

    /// `iloc`, versions 0 to 2: each item's extents, relative to the file or to `idat`.
    private static func parseLocations(_ bytes: UnsafeBufferPointer<UInt8>,
                                       _ payload: Range<Int>) throws(LoaderError) -> [Int: Location] {
        var reader = BigEndianReader(bytes, payload)
        guard let version = reader.u8(), version <= 2, reader.skip(3),
              let sizes = reader.u16(), let itemCount = reader.uint(size: version < 2 ? 2 : 4),
              itemCount <= maxItems
        else { throw .decode }
        let offsetSize = sizes >> 12, lengthSize = sizes >> 8 & 15, baseOffsetSize = sizes >> 4 & 15
        let indexSize = version == 0 ? 0 : sizes & 15
        var locations: [Int: Location] = [:]
        for _ in 0..<itemCount {
            guard let id = reader.uint(size: version < 2 ? 2 : 4) else { throw .decode }
            var method = 0
            if version >= 1 {
                guard let field = reader.u16() else { throw .decode }
                method = field & 15
            }
            guard let dataReference = reader.u16(), let base = reader.uint(size: baseOffsetSize),
                  let extentCount = reader.u16()
            else { throw .decode }
            // Another file's data (a data reference) is never read.
            guard dataReference == 0, extentCount <= maxExtentsPerItem else { throw .decode }
            var extents: [(offset: Int, length: Int)] = []
            for _ in 0..<extentCount {
                guard reader.skip(indexSize), let offset = reader.uint(size: offsetSize),
                      let length = reader.uint(size: lengthSize)
                else { throw .decode }
                extents.append((offset, length))
            }
            locations[id] = Location(constructionMethod: method, baseOffset: base, extents: extents)
        }
        return locations
    }

    /// The file ranges of a location: method 0 counts from the file's start, 1 from
    /// `idat`'s; a length of 0 means "to the end". Other methods are refused.
    private static func resolve(_ location: Location, fileSize: Int, idat: Range<Int>?) throws(LoaderError) -> [Range<Int>] {
        let space: Range<Int>
        switch location.constructionMethod {
        case 0: space = 0..<fileSize
        case 1:
            guard let idat else { throw .decode }
            space = idat
        default: throw .decode
        }
        var ranges: [Range<Int>] = []
        for extent in location.extents {
            guard case (let relative, false) = location.baseOffset.addingReportingOverflow(extent.offset),
                  relative <= space.count
            else { throw .decode }
            let start = space.lowerBound + relative
            let length = extent.length == 0 ? space.upperBound - start : extent.length
            guard length <= space.upperBound - start else { throw .decode }
            ranges.append(start..<start + length)
        }
        return ranges
    }
}
