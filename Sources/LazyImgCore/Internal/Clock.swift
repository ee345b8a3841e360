import Glibc

/// Monotonic time in milliseconds. A protocol so policy tests can move time by hand.
public protocol Clock: Sendable {
    var nowMilliseconds: Int64 { get }
}

/// CLOCK_MONOTONIC: never jumps with the wall clock.
public struct MonotonicClock: Clock {
    public init() {}

    public var nowMilliseconds: Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }
}
