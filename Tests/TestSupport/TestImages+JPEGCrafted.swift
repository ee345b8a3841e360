/// `jpeg` with its frame header (SOF0 or SOF2) claiming `width` x `height`; the scans
/// stay as they are, so the data is far too short for a larger claim.
public func settingJPEGFrameSize(_ jpeg: [UInt8], width: Int, height: Int) -> [UInt8] {
    var patched = jpeg
    guard let sof = jpeg.indices.dropLast().first(where: { jpeg[$0] == 0xFF && (jpeg[$0 + 1] == 0xC0 || jpeg[$0 + 1] == 0xC2) })
    else { return [] }
    // FF Cn, length (2), precision (1), height (2), width (2)
    patched.replaceSubrange((sof + 5)...(sof + 8),
                            with: [UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF)])
    return patched
}

/// A grey progressive JPEG of one component whose 63 AC coefficients each come in
/// `bitPlanes` scans (a first scan, then refinements one bit at a time), after one DC
/// scan: 1 + 63 x bitPlanes scans, every one walking every block of the frame, in a
/// few bytes each. A valid progression (libjpeg warns about none of it); 7 bit planes
/// make 442 scans, within TurboJPEG's 500. With `repeats` set instead, the same AC
/// scan comes that many times: an invalid progression libjpeg warns about.
public func makeManyScanJPEG(width: Int, height: Int, bitPlanes: Int = 7, repeats: Int? = nil) -> [UInt8] {
    func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        let length = payload.count + 2
        return [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }
    let blocks = ((width + 7) / 8) * ((height + 7) / 8)
    var jpeg: [UInt8] = [0xFF, 0xD8]
    jpeg += segment(0xDB, [0] + [UInt8](repeating: 1, count: 64))
    jpeg += segment(0xC2, [8, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF),
                           1, 1, 0x11, 0])
    // DC table 0: one code, "0", for difference category 0. AC table 0: one code, "0",
    // for EOB14 (an end-of-band run of 2^14 plus 14 more bits).
    let oneCode = [1] + [UInt8](repeating: 0, count: 15)
    jpeg += segment(0xC4, [0x00] + oneCode + [0x00])
    jpeg += segment(0xC4, [0x10] + oneCode + [0xE0])
    // DC scan: a 0 bit per block, padded with 1s.
    jpeg += segment(0xDA, [1, 1, 0x00, 0, 0, 0])
    var dc = [UInt8](repeating: 0, count: blocks / 8)
    if blocks % 8 != 0 { dc.append(0xFF >> (blocks % 8)) }
    jpeg += stuffed(dc)
    // Each AC scan: EOB14 runs of 32767 blocks ("0" then fourteen 1 bits) until every
    // block is covered.
    let runs = (blocks + 32766) / 32767
    var bits: [Bool] = []
    for _ in 0..<runs { bits += [false] + [Bool](repeating: true, count: 14) }
    while bits.count % 8 != 0 { bits.append(true) }
    let acData = stuffed(stride(from: 0, to: bits.count, by: 8).map { start in
        bits[start..<(start + 8)].reduce(UInt8(0)) { $0 << 1 | ($1 ? 1 : 0) }
    })
    if let repeats {
        for _ in 0..<repeats { jpeg += segment(0xDA, [1, 1, 0x00, 1, 63, 0]) + acData }
    } else {
        for band in 1...63 {
            for plane in stride(from: bitPlanes - 1, through: 0, by: -1) {
                // First scan: Ah = 0, Al = plane; refinements: Ah = plane + 1, Al = plane.
                let approximation = plane == bitPlanes - 1 ? UInt8(plane) : UInt8((plane + 1) << 4 | plane)
                jpeg += segment(0xDA, [1, 1, 0x00, UInt8(band), UInt8(band), approximation]) + acData
            }
        }
    }
    return jpeg + [0xFF, 0xD9]
}

/// Entropy-coded bytes with each 0xFF followed by the stuffed 0x00.
private func stuffed(_ bytes: [UInt8]) -> [UInt8] {
    bytes.flatMap { $0 == 0xFF ? [0xFF, 0x00] : [$0] }
}
