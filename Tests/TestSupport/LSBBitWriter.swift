/// Bits packed least significant first, as deflate and WebP lossless pack them.
struct LSBBitWriter {
    private(set) var bytes: [UInt8] = []
    private var bitCount = 0

    /// Least significant bit first, as deflate packs header bits and extra bits.
    mutating func write(_ value: Int, bits: Int) {
        for i in 0..<bits { append((value >> i) & 1 == 1) }
    }

    /// Most significant bit first, as deflate packs Huffman codes.
    mutating func writeReversed(_ value: Int, bits: Int) {
        for i in stride(from: bits - 1, through: 0, by: -1) { append((value >> i) & 1 == 1) }
    }

    /// A fixed-Huffman length code for `length` (3...258) and its extra bits.
    mutating func writeLength(_ length: Int) {
        if length == 258 {
            writeReversed(0b1100_0101, bits: 8)  // code 285
            return
        }
        let bases = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131,
                     163, 195, 227]
        let extras = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5]
        let index = bases.lastIndex(where: { $0 <= length }) ?? 0
        let code = 257 + index
        // Codes 256-279: 7 bits from 0; 280-287: 8 bits from 0b11000000.
        if code <= 279 {
            writeReversed(code - 256, bits: 7)
        } else {
            writeReversed(0b1100_0000 + code - 280, bits: 8)
        }
        write(length - bases[index], bits: extras[index])
    }

    private mutating func append(_ bit: Bool) {
        if bitCount % 8 == 0 { bytes.append(0) }
        if bit { bytes[bytes.count - 1] |= 1 << (bitCount % 8) }
        bitCount += 1
    }
}

