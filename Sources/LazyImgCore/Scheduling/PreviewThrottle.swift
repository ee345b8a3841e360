/// One download's previews: how far the last one went, when it began, and whether
/// its decode still runs. A new prefix is decoded only when it holds more (scans,
/// or bytes of an interlaced PNG, whose decode then looks for more passes), the
/// interval has passed and no decode of this download runs: a slow link then
/// costs one decode per interval at most, however many scans arrive.
///
/// The newest prefix that came too soon waits, until the decode ends or the
/// interval does: the link may stall after it (a server pausing, a congested
/// link), and an interlaced PNG's earlier starts may have held no complete pass.
struct PreviewThrottle {
    enum Verdict: Equatable {
        case decode
        /// Kept, to be considered again at this moment (nil: when the decode ends).
        case wait(until: Int64?)
        /// No more than the last.
        case drop
    }

    /// The stage of the last prefix sent to decode; a prefix must hold more.
    private(set) var stage = 0
    private var startedAt: Int64?
    private(set) var isDecoding = false
    /// An interlaced PNG's passes in the last preview shown: the next must show more.
    private(set) var passes = 0
    private var waiting: ReceivedPrefix?

    var hasWaitingPrefix: Bool { waiting != nil && !isDecoding }

    mutating func admit(_ prefix: ReceivedPrefix, now: Int64, interval: Int64) -> Verdict {
        guard prefix.stage > stage else { return .drop }
        if isDecoding {
            waiting = prefix
            return .wait(until: nil)
        }
        if let startedAt, now - startedAt < interval {
            waiting = prefix
            return .wait(until: startedAt + interval)
        }
        return .decode
    }

    mutating func began(stage next: Int, now: Int64) {
        stage = next
        startedAt = now
        isDecoding = true
        waiting = nil
    }

    /// `passes`: what the preview shown holds; nil when none was shown.
    mutating func decodeEnded(showing passes: Int?) {
        isDecoding = false
        if let passes { self.passes = passes }
    }

    /// The prefix that waits, handed over.
    mutating func takeWaiting() -> ReceivedPrefix? {
        defer { waiting = nil }
        return waiting
    }
}
