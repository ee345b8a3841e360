/// `png` with a chunk of `type` carrying `data` inserted right after IHDR, with its
/// CRC right, or wrong when `damagedCRC` is set.
public func insertingPNGChunk(_ type: String, _ data: [UInt8], into png: [UInt8], damagedCRC: Bool = false) -> [UInt8] {
    let typeBytes = Array(type.utf8)
    var crc = pngCRC(typeBytes + data)
    if damagedCRC { crc ^= 1 }
    let chunk = be32(data.count) + typeBytes + data + be32(Int(crc))
    // Signature (8) and IHDR (4 + 4 + 13 + 4).
    return Array(png.prefix(33)) + chunk + Array(png.dropFirst(33))
}

/// `png` with a chunk header of `type` declaring `length` bytes inserted after IHDR,
/// followed only by what the rest of the file happens to hold.
public func insertingPNGChunkHeader(_ type: String, declaring length: UInt32, into png: [UInt8]) -> [UInt8] {
    Array(png.prefix(33)) + be32(Int(length)) + Array(type.utf8) + Array(png.dropFirst(33))
}

/// A zlib stream of `count` zero bytes, stored as deflate's fixed-Huffman runs: a
/// few bytes per 258 zeros, so a small chunk inflates to as much as asked.
public func zlibBomb(inflatingTo count: Int) -> [UInt8] {
    var writer = LSBBitWriter()
    writer.write(0b1, bits: 1)   // BFINAL
    writer.write(0b01, bits: 2)  // fixed Huffman
    // Literal 0 (code 00110000, 8 bits, written most significant bit first).
    writer.writeReversed(0b0011_0000, bits: 8)
    var left = count - 1
    while left > 0 {
        let run = min(258, left)
        if run < 3 {
            for _ in 0..<run { writer.writeReversed(0b0011_0000, bits: 8) }
            left -= run
            continue
        }
        writer.writeLength(run)
        writer.write(0, bits: 5)  // distance code 0: distance 1
        left -= run
    }
    writer.writeReversed(0, bits: 7)  // end of block (code 256: 0000000)
    var stream: [UInt8] = [0x78, 0x01] + writer.bytes
    // Adler-32 of `count` zeros: a = 1, b = count mod 65521.
    let b = count % 65521
    stream += [UInt8(b >> 8), UInt8(b & 0xFF), 0, 1]
    return stream
}

private func be32(_ value: Int) -> [UInt8] {
    [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
}

/// Where the first IDAT chunk of `png` starts (its length field); nil when none does.
public func firstPNGChunk(_ type: String, in png: [UInt8]) -> Int? {
    var offset = 8
    while offset + 8 <= png.count {
        if png[(offset + 4)..<(offset + 8)].elementsEqual(type.utf8) { return offset }
        offset += 12 + pngChunkLength(png, at: offset)
    }
    return nil
}

private func pngChunkLength(_ png: [UInt8], at offset: Int) -> Int {
    (0..<4).reduce(0) { $0 << 8 | Int(png[offset + $1]) }
}

/// `png` with an IHDR that declares other sides, its CRC made to match.
public func withPNGSize(_ png: [UInt8], width: Int, height: Int) -> [UInt8] {
    var bytes = png
    for i in 0..<4 {
        bytes[16 + i] = UInt8(truncatingIfNeeded: width >> (24 - 8 * i))
        bytes[20 + i] = UInt8(truncatingIfNeeded: height >> (24 - 8 * i))
    }
    return withMatchingPNGCRC(bytes, chunkAt: 8)
}

/// `png` with the CRC of the chunk at `offset` made to match its bytes.
public func withMatchingPNGCRC(_ png: [UInt8], chunkAt offset: Int) -> [UInt8] {
    var bytes = png
    let end = offset + 8 + pngChunkLength(png, at: offset)
    let crc = pngCRC(bytes[(offset + 4)..<end])
    for i in 0..<4 { bytes[end + i] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * i)) }
    return bytes
}

/// `png` with its first IDAT's first `count` bytes of data garbled (0xFF: no zlib
/// stream starts so) and its CRC matching: damage only the decoder can see.
public func withGarbledPNGImageData(_ png: [UInt8], count: Int = 32) -> [UInt8] {
    guard let idat = firstPNGChunk("IDAT", in: png) else { return png }
    var bytes = png
    for i in (idat + 8)..<min(idat + 8 + count, idat + 8 + pngChunkLength(png, at: idat)) { bytes[i] = 0xFF }
    return withMatchingPNGCRC(bytes, chunkAt: idat)
}
