/// One download's previews: how far the last one went, when it began, and whether
/// its decode still runs. A new prefix is decoded only when it holds more scans,
/// the interval has passed and no decode of this download runs: a slow link then
/// costs one decode per interval at most, however many scans arrive.
struct PreviewThrottle {
    /// Scans in the last prefix sent to decode; a prefix must hold more.
    private(set) var stage = 0
    private var startedAt: Int64?
    private(set) var isDecoding = false

    func admits(stage next: Int, now: Int64, interval: Int64) -> Bool {
        guard next > stage, !isDecoding else { return false }
        guard let startedAt else { return true }
        return now - startedAt >= interval
    }

    mutating func began(stage next: Int, now: Int64) {
        stage = next
        startedAt = now
        isDecoding = true
    }

    mutating func decodeEnded() {
        isDecoding = false
    }
}
