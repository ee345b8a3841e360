/// HEVC parameter sets, and HEICs built around them, written by hand: for the checks
/// that read them before anything is decoded. They need no encoder.

/// An SPS NAL unit (H.265 7.3.2.2) up to the coding block sizes, with emulation
/// prevention bytes inserted as an encoder would; `window` is the conformance window's
/// offsets (left, right, top, bottom, in chroma samples).
public func makeHEVCSequenceParameterSet(subLayers: [(profile: Bool, level: Bool)] = [], chromaFormat: Int,
                                         width: Int, height: Int, window: [Int]? = nil,
                                         depths: (Int, Int) = (8, 8)) -> [UInt8] {
    var bits: [Bool] = []
    func put(_ value: Int, _ count: Int) { for i in (0..<count).reversed() { bits.append(value >> i & 1 == 1) } }
    func putExpGolomb(_ value: Int) {
        let coded = value + 1, length = Int.bitWidth - coded.leadingZeroBitCount
        put(0, length - 1)
        put(coded, length)
    }
    put(0, 4)
    put(subLayers.count, 3)
    put(1, 1)
    put(0, 96)  // general profile, tier and level: zeros, to make emulation prevention happen
    for layer in subLayers { put(layer.profile ? 1 : 0, 1); put(layer.level ? 1 : 0, 1) }
    if !subLayers.isEmpty { put(0, 2 * (8 - subLayers.count)) }
    for layer in subLayers {
        if layer.profile { put(0x5A5A5A, 88 - 64); put(0, 64) }
        if layer.level { put(0x7E, 8) }
    }
    putExpGolomb(0)
    putExpGolomb(chromaFormat)
    if chromaFormat == 3 { put(0, 1) }
    putExpGolomb(width)
    putExpGolomb(height)
    put(window == nil ? 0 : 1, 1)
    window?.forEach(putExpGolomb)
    putExpGolomb(depths.0 - 8)
    putExpGolomb(depths.1 - 8)
    putExpGolomb(4)  // log2_max_pic_order_cnt_lsb_minus4
    put(1, 1)  // ordering for each sub-layer
    for _ in 0..<3 * (subLayers.count + 1) { putExpGolomb(0) }
    putExpGolomb(0)  // 8 x 8 coding blocks
    putExpGolomb(2)  // in 32 x 32 trees
    put(1, 1)  // what follows does not matter here
    while bits.count % 8 != 0 { bits.append(false) }
    let payload = stride(from: 0, to: bits.count, by: 8).map { start in
        bits[start..<start + 8].reduce(0) { $0 << 1 | ($1 ? 1 : 0) } as UInt8
    }
    var escaped: [UInt8] = [0x42, 0x01]  // NAL header: type 33
    var zeros = 0
    for byte in payload {
        if zeros >= 2 && byte <= 3 {
            escaped.append(3)
            zeros = 0
        }
        escaped.append(byte)
        zeros = byte == 0 ? zeros + 1 : 0
    }
    return escaped
}

/// A HEIC whose one picture's SPS (and ispe) declares `width` x `height` at `depth`
/// bits in `chromaFormat` (H.265's number: 1 is 4:2:0, 3 is 4:4:4): everything a decoder
/// reads before decoding, for files that must be refused then. Its coded picture is a
/// one-byte IDR slice stub that libde265 would reject.
public func makeHEICClaiming(width: Int, height: Int, chromaFormat: Int, depth: Int) -> [UInt8] {
    let sps = makeHEVCSequenceParameterSet(chromaFormat: chromaFormat, width: width, height: height,
                                           depths: (depth, depth))
    // HEVCDecoderConfigurationRecord: 21 bytes of fields, lengthSizeMinusOne 3, one
    // array (type 33) of one unit.
    let hvcC = isoBox("hvcC", [1] + [UInt8](repeating: 0, count: 20) + [0xFF, 1, 0x21]
                               + bigEndian(1, bytes: 2) + bigEndian(sps.count, bytes: 2) + sps)
    let ispe = isoFullBox("ispe", 0, bigEndian(width, bytes: 4) + bigEndian(height, bytes: 4))
    // An IDR_W_RADL slice (type 19) with first_slice_segment_in_pic_flag set.
    let slice: [UInt8] = [0x26, 0x01, 0x80]
    let sample = bigEndian(slice.count, bytes: 4) + slice
    let ftyp = isoBox("ftyp", Array("heic".utf8) + bigEndian(0, bytes: 4) + Array("mif1heic".utf8))
    func meta(mdatStart: Int) -> [UInt8] {
        isoFullBox("meta", 0,
            isoFullBox("hdlr", 0, bigEndian(0, bytes: 4) + Array("pict".utf8) + [UInt8](repeating: 0, count: 13))
            + isoFullBox("pitm", 0, bigEndian(1, bytes: 2))
            + isoFullBox("iloc", 1, [0x44, 0x00] + bigEndian(1, bytes: 2) + bigEndian(1, bytes: 2) + bigEndian(0, bytes: 2)
                                    + bigEndian(0, bytes: 2) + bigEndian(1, bytes: 2)
                                    + bigEndian(mdatStart + 8, bytes: 4) + bigEndian(sample.count, bytes: 4))
            + isoFullBox("iinf", 0, bigEndian(1, bytes: 2)
                                    + isoFullBox("infe", 2, bigEndian(1, bytes: 2) + bigEndian(0, bytes: 2) + Array("hvc1".utf8) + [0]))
            + isoBox("iprp", isoBox("ipco", hvcC + ispe)
                             + isoFullBox("ipma", 0, bigEndian(1, bytes: 4) + bigEndian(1, bytes: 2) + [2, 0x81, 0x02])))
    }
    let mdatStart = ftyp.count + meta(mdatStart: 0).count
    return ftyp + meta(mdatStart: mdatStart) + isoBox("mdat", sample)
}
