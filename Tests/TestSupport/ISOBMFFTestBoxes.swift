/// ISO-BMFF boxes for the tests that build HEIF and AVIF files, or parts of them, by
/// hand: a grid of coded tiles, or headers that lie.

/// `value` as `bytes` big-endian bytes.
public func bigEndian(_ value: Int, bytes: Int) -> [UInt8] {
    (0..<bytes).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
}

/// A box: 32-bit size, four-character type, payload.
public func isoBox(_ type: String, _ payload: [UInt8]) -> [UInt8] {
    bigEndian(8 + payload.count, bytes: 4) + Array(type.utf8) + payload
}

/// A FullBox: a box whose payload starts with a version byte and 24 bits of flags.
public func isoFullBox(_ type: String, _ version: Int, _ payload: [UInt8], flags: Int = 0) -> [UInt8] {
    isoBox(type, [UInt8(version)] + bigEndian(flags, bytes: 3) + payload)
}

/// Where the first box of `type` starts in `file` (its size field), searching the
/// bytes for its name; nil when absent. For patching generated files in tests.
public func isoBoxOffset(_ type: String, in file: [UInt8]) -> Int? {
    let name = Array(type.utf8)
    guard file.count >= 8 else { return nil }
    return (4...file.count - 4).first { file[$0..<$0 + 4].elementsEqual(name) }.map { $0 - 4 }
}
