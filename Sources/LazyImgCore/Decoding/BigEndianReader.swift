/// A cursor over part of a file, reading big-endian integers as ISO-BMFF stores them.
///
/// Every read is checked against `end` and returns nil past it, so a length field
/// that lies can end a parse but never read outside the bytes. Values come back as
/// `Int` (64-bit here), which holds any 32-bit field without a sign problem.
struct BigEndianReader {
    let bytes: UnsafeBufferPointer<UInt8>
    private(set) var position: Int
    let end: Int

    /// Reads `range` of `bytes`, which must lie inside them.
    init(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
        self.bytes = bytes
        position = range.lowerBound
        end = range.upperBound
    }

    var remaining: Int { end - position }

    mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, count <= remaining else { return false }
        position += count
        return true
    }

    /// An unsigned integer of `size` bytes (0 reads as 0, as iloc's absent fields do);
    /// nil past the end, or for 8-byte values above `Int.max`.
    mutating func uint(size: Int) -> Int? {
        guard size >= 0, size <= 8, size <= remaining else { return nil }
        var value: UInt64 = 0
        for i in 0..<size {
            value = value << 8 | UInt64(bytes[position + i])
        }
        guard value <= UInt64(Int.max) else { return nil }
        position += size
        return Int(value)
    }

    mutating func u8() -> Int? { uint(size: 1) }
    mutating func u16() -> Int? { uint(size: 2) }
    mutating func u32() -> Int? { uint(size: 4) }
}
