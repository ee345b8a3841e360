import CLazyImgSupport
import Glibc

/// The moments the host's per-frame calls take (a scroll sample's), as the
/// processor's cycle count where the kernel keeps time by it: one instruction.
/// `clock_gettime` reads the vDSO's code and the kernel's time data, and after a
/// frame's sleep those pages and lines are cold: the largest part of a moving
/// frame's first call (docs/performance.md, "A frame's first call"). The
/// scheduler's thread turns each stamp into CLOCK_MONOTONIC milliseconds as it
/// takes the input (`CycleStampReader`).
enum CycleStamps {
    /// Whether the cycle counter keeps time on this machine; read once.
    static let keepTime: Bool = lazyimg_cycles_keep_time() != 0

    @inline(__always)
    static var now: Int64 { Int64(bitPattern: lazyimg_cycles()) }
}

/// Turns cycle stamps into CLOCK_MONOTONIC milliseconds on the scheduler's thread.
/// It reads both clocks as a stamp arrives, a few milliseconds after it was taken,
/// and only the stamp's age is scaled by the counter's rate (measured over the
/// reader's life): an error in the rate barely counts.
struct CycleStampReader {
    private let originCycles: UInt64
    private let originNanoseconds: Int64
    /// An age past this is no stamp taken moments ago (nor one from this reader's
    /// counter): the arrival's moment stands for it.
    static let maxAgeNanoseconds = 60e9

    init() {
        (originCycles, originNanoseconds) = Self.readBoth()
    }

    func milliseconds(atStamp stamp: Int64) -> Int64 {
        var (cycles, nanoseconds) = Self.readBoth()
        // The rate over a millisecond at least: a wait only just after the start.
        while nanoseconds - originNanoseconds < 1_000_000 { (cycles, nanoseconds) = Self.readBoth() }
        let rate = Double(cycles &- originCycles) / Double(nanoseconds - originNanoseconds)
        let counted = UInt64(bitPattern: stamp)
        var age = counted <= cycles && rate > 0 ? Double(cycles - counted) / rate : 0
        if !(age <= Self.maxAgeNanoseconds) { age = 0 }
        return (nanoseconds - Int64(age)) / 1_000_000
    }

    private static func readBoth() -> (cycles: UInt64, nanoseconds: Int64) {
        (lazyimg_cycles(), MonotonicClock.nanoseconds)
    }
}
