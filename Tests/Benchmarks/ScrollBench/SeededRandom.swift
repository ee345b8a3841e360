import Glibc

/// A small deterministic generator (SplitMix64), so a trace is the same every run.
struct SeededRandom {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next(below bound: Int) -> Int {
        Int(nextBits() % UInt64(max(1, bound)))
    }

    /// Uniform in `range`.
    mutating func uniform(_ range: ClosedRange<Double>) -> Double {
        range.lowerBound + (range.upperBound - range.lowerBound) * Double(nextBits() >> 11) / Double(1 << 53)
    }

    /// Uniform in the logarithm: as many speeds between 300 and 1,000 as between
    /// 3,000 and 10,000.
    mutating func logUniform(_ range: ClosedRange<Double>) -> Double {
        exp(uniform(log(range.lowerBound)...log(range.upperBound)))
    }

    /// True with probability `p`.
    mutating func chance(_ p: Double) -> Bool { uniform(0...1) < p }

    private mutating func nextBits() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
