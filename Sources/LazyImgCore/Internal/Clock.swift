import Glibc

/// Monotonic time in milliseconds. A protocol so policy tests can move time by hand.
public protocol Clock: Sendable {
    var nowMilliseconds: Int64 { get }
    /// Whether the host's per-frame calls may time themselves by the cycle
    /// counter (`CycleStamps`), which keeps this clock's time; false by default.
    var stampsCountCycles: Bool { get }
}

extension Clock {
    public var stampsCountCycles: Bool { false }
}

/// CLOCK_MONOTONIC: never jumps with the wall clock.
public struct MonotonicClock: Clock {
    public init() {}

    public var stampsCountCycles: Bool { CycleStamps.keepTime }

    public var nowMilliseconds: Int64 { Self.nanoseconds / 1_000_000 }

    /// CLOCK_MONOTONIC in nanoseconds: the one reading of it that the clock and the
    /// cycle stamps' conversion (`CycleStampReader`) share.
    static var nanoseconds: Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
}

extension Int64 {
    /// `self + other` without trapping: a moment a delay from outside (Retry-After,
    /// a backoff) puts past the end of time.
    func addingClamped(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }
}
