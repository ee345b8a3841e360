import Glibc

/// BlurHash's last step, linear light to an sRGB byte, as its reference decoders do it
/// (TypeScript's `linearTosRGB`, the Python port's `linear_to_srgb`): clamp to 0...1,
/// the sRGB curve in doubles, then + 0.5 and truncate.
///
/// Calling `pow` for each channel of each pixel cost as much as the rest of a render.
/// The curve only rises, so its byte is the number of thresholds at or below the input,
/// where threshold k is the least double whose byte is k + 1. The thresholds are found
/// once, by the curve itself, so the answer is the curve's own, not an approximation
/// (PlaceholderDecodingTests checks it around every threshold).
struct LinearToSRGB: @unchecked Sendable {
    // @unchecked: the tables are written once, in init, and only read after.

    /// Made on first use and kept for the process; renders copy it into a local first,
    /// so the lookups in their loops touch no lazy global.
    static let shared = LinearToSRGB()

    /// The reference computation.
    static func byte(exactly value: Double) -> UInt8 {
        let v = max(0, min(1, value))
        if v <= 0.0031308 { return UInt8(truncatingIfNeeded: Int(v * 12.92 * 255 + 0.5)) }
        return UInt8(truncatingIfNeeded: Int((1.055 * pow(v, 1 / 2.4) - 0.055) * 255 + 0.5))
    }

    /// `thresholds[k]`: the least double whose byte is more than k; `thresholds[255]`
    /// is infinity, which ends every search.
    let thresholds: UnsafeMutablePointer<Double>
    private static let intervals = 4096
    /// For each of 4096 equal intervals of 0...1, the thresholds below its start: the
    /// byte there. `v * 4096` finds the interval exactly, 4096 being a power of two.
    private let below: UnsafeMutablePointer<UInt8>

    private init() {
        thresholds = .allocate(capacity: 256)
        for k in 0..<255 {
            // From the curve's inverse at the byte's rounding point, stepped to the exact
            // double: the inverse is a few units in the last place off.
            let s = (Double(k) + 0.5) / 255
            var v = s <= 0.04045 ? s / 12.92 : pow((s + 0.055) / 1.055, 2.4)
            while v > 0 && Self.byte(exactly: v.nextDown) > k { v = v.nextDown }
            while Self.byte(exactly: v) <= k { v = v.nextUp }
            thresholds[k] = v
        }
        thresholds[255] = .infinity
        below = .allocate(capacity: Self.intervals)
        var byte = 0
        for interval in 0..<Self.intervals {
            let start = Double(interval) / Double(Self.intervals)
            while thresholds[byte] <= start { byte += 1 }
            below[interval] = UInt8(byte)
        }
    }

    /// What `byte(exactly:)` returns, from the tables.
    @inline(__always)
    func byte(_ value: Double) -> UInt8 {
        let v = max(0, min(1, value))
        var byte = Int(below[min(Self.intervals - 1, Int(v * Double(Self.intervals)))])
        // An interval holds at most one threshold with glibc's pow: that compare is made
        // without a branch, and the loop is for any other library's curve.
        byte += thresholds[byte] <= v ? 1 : 0
        while thresholds[byte] <= v { byte += 1 }
        return UInt8(truncatingIfNeeded: byte)
    }
}
