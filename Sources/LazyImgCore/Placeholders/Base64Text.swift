/// Base64 text to bytes, as ThumbHashes travel in feeds: the standard alphabet or the
/// URL-safe one (`-` and `_`), with or without `=` padding. Nothing else is accepted,
/// not even whitespace: a hash is one short token.
enum Base64Text {
    /// The 6-bit value of each byte, -1 for bytes outside both alphabets.
    private static let values: [Int8] = {
        var values = [Int8](repeating: -1, count: 256)
        for (value, character) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() {
            values[Int(character)] = Int8(value)
        }
        values[Int(UInt8(ascii: "-"))] = 62
        values[Int(UInt8(ascii: "_"))] = 63
        return values
    }()

    /// The bytes `text` encodes, or nil when it is not base64.
    static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
        var symbols = Array(text)
        var padding = 0
        while symbols.last == UInt8(ascii: "=") && padding < 2 {
            symbols.removeLast()
            padding += 1
        }
        // Padding, when present, fills the last group of four; one symbol alone carries
        // less than a byte.
        guard padding == 0 || (symbols.count + padding) % 4 == 0, symbols.count % 4 != 1 else { return nil }
        var bytes = [UInt8]()
        bytes.reserveCapacity(symbols.count * 3 / 4)
        var bits: UInt32 = 0, bitCount = 0
        for symbol in symbols {
            let value = values[Int(symbol)]
            guard value >= 0 else { return nil }
            bits = bits << 6 | UInt32(value)
            bitCount += 6
            if bitCount >= 8 {
                bitCount -= 8
                bytes.append(UInt8(truncatingIfNeeded: bits >> UInt32(bitCount)))
            }
        }
        return bytes
    }
}
