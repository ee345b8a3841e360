/// An HEVC-coded image item (`hvc1`) as libde265 is given it: the NAL units of its
/// `hvcC` (the parameter sets), then those of its bytes up to the end of its first
/// picture, which must be an intra (IRAP) picture.
///
/// An image item holds one picture; stopping after the first, and taking only an IRAP
/// one, means libde265 never holds a second picture or makes up the missing reference
/// pictures a predicted one would ask for. Each NAL unit is read where it lies in the
/// file (or in the item's bytes joined, when it has several extents), so a hostile
/// item with millions of tiny units costs no table of them here.
struct HEVCCodedItem {
    /// The hvcC's NAL units, as ranges of the file.
    private let configuration: [Range<Int>]
    /// The item's bytes: its one extent of the file, or its extents joined.
    private let sample: UnsafeBufferPointer<UInt8>
    private let joined: JoinedExtents?
    /// Where in `sample` the first picture's NAL units end.
    private let sampleEnd: Int
    /// The bytes in front of each NAL unit of the sample that give its length.
    private let lengthSize: Int
    /// The largest of what every SPS given to libde265 declares, for what the decode costs.
    let largestSequence: HEVCSequenceParameters
    /// The size of the picture libde265 will hand over, which every SPS agrees on.
    let shownSize: (width: Int, height: Int)
    /// Slice segments of the first picture: libde265 keeps a header of each.
    let sliceSegments: Int
    /// The bytes libde265 is given, which it copies.
    var codedBytes: Int { sampleEnd + configuration.reduce(0) { $0 + $1.count } }

    private static let configurationType = HEIFItems.fourCC("hvcC")

    /// Throws `.decode` for an item without `hvcC`, NAL units that do not fit where
    /// they are, no SPS or ones that disagree on the size shown, or a first picture that
    /// is not IRAP.
    init(_ item: HEIFItems.Item, of items: HEIFItems, in bytes: UnsafeBufferPointer<UInt8>) throws(LoaderError) {
        guard let record = items.property(Self.configurationType, of: item) else { throw .decode }
        // HEVCDecoderConfigurationRecord: 21 bytes of fields, lengthSizeMinusOne in the
        // low bits of the 22nd, then arrays of NAL units, each with a 16-bit length.
        var reader = BigEndianReader(bytes, record)
        guard reader.skip(21), let sizes = reader.u8(), let arrayCount = reader.u8() else { throw .decode }
        var units: [Range<Int>] = []
        for _ in 0..<arrayCount {
            guard reader.skip(1), let unitCount = reader.u16() else { throw .decode }
            for _ in 0..<unitCount {
                guard let length = reader.u16(), length >= 2 else { throw .decode }
                let start = reader.position
                guard reader.skip(length) else { throw .decode }
                units.append(start..<start + length)
            }
        }
        configuration = units
        let lengthSize = sizes & 3 + 1, sample: UnsafeBufferPointer<UInt8>
        if item.extents.count == 1 {
            sample = UnsafeBufferPointer(rebasing: bytes[item.extents[0]])
            joined = nil
        } else {
            let copy = JoinedExtents(item.extents, of: bytes)
            sample = UnsafeBufferPointer(copy.bytes)
            joined = copy
        }
        self.lengthSize = lengthSize
        self.sample = sample

        var largest: HEVCSequenceParameters?, shown: (width: Int, height: Int)?
        func note(_ unit: UnsafeBufferPointer<UInt8>) throws(LoaderError) {
            guard HEVCSequenceParameters.nalType(unit[0]) == HEVCSequenceParameters.spsType else { return }
            guard let sps = HEVCSequenceParameters(ArraySlice(unit.prefix(HEVCSequenceParameters.bytesRead))),
                  let size = sps.shownSize, shown.map({ $0 == size }) ?? true
            else { throw .decode }
            largest = largest.map { $0.covering(sps) } ?? sps
            shown = size
        }
        for unit in units {
            try note(UnsafeBufferPointer(rebasing: bytes[unit]))
        }
        var end = 0, slices = 0
        try Self.walk(sample, lengthSize: lengthSize) { (start, unit) throws(LoaderError) in
            let type = HEVCSequenceParameters.nalType(unit[0])
            if type < 32 {
                // A VCL unit: its slice header begins with first_slice_segment_in_pic_flag.
                guard unit.count > 2 else { throw .decode }
                if unit[2] & 0x80 != 0 && slices > 0 { return false }
                guard (16...23).contains(type) else { throw .decode }
                slices += 1
            }
            try note(unit)
            end = start + lengthSize + unit.count
            return true
        }
        guard slices > 0, let largest, let shown else { throw .decode }
        sampleEnd = end
        sliceSegments = slices
        largestSequence = largest
        shownSize = shown
    }

    /// Calls `body` with each NAL unit libde265 is to be given, in order.
    func forEachUnit(in bytes: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        for unit in configuration {
            body(UnsafeBufferPointer(rebasing: bytes[unit]))
        }
        // The walk to sampleEnd succeeded once already.
        try? Self.walk(UnsafeBufferPointer(rebasing: sample[0..<sampleEnd]), lengthSize: lengthSize) {
            (_, unit) throws(LoaderError) in
            body(unit)
            return true
        }
    }

    /// Walks the NAL units of `sample`, each after its length, until `body` returns
    /// false; `.decode` for a unit that does not fit or is too short for its header.
    /// Empty units are passed over.
    private static func walk(_ sample: UnsafeBufferPointer<UInt8>, lengthSize: Int,
                             _ body: (_ start: Int, _ unit: UnsafeBufferPointer<UInt8>) throws(LoaderError) -> Bool)
        throws(LoaderError) {
        var position = 0
        while position < sample.count {
            guard sample.count - position >= lengthSize else { throw .decode }
            let length = sample[position..<position + lengthSize].reduce(0) { $0 << 8 | Int($1) }
            let start = position
            position += lengthSize
            guard length <= sample.count - position else { throw .decode }
            let unit = position..<position + length
            position += length
            guard length > 0 else { continue }
            guard length >= 2 else { throw .decode }
            guard try body(start, UnsafeBufferPointer(rebasing: sample[unit])) else { return }
        }
    }
}

/// An item's extents copied into one buffer, as libde265 needs its NAL units whole.
private final class JoinedExtents {
    let bytes: UnsafeMutableBufferPointer<UInt8>

    /// The extents lie in `file` and add up to at most its size (checkImageSizes).
    init(_ extents: [Range<Int>], of file: UnsafeBufferPointer<UInt8>) {
        bytes = .allocate(capacity: extents.reduce(0) { $0 + $1.count })
        var filled = 0
        for extent in extents {
            _ = UnsafeMutableBufferPointer(rebasing: bytes[filled..<filled + extent.count]).initialize(from: file[extent])
            filled += extent.count
        }
    }

    deinit {
        bytes.deallocate()
    }
}
