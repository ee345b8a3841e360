/// Which failed downloads are tried again, and after how long.
///
/// Only failures that a moment's wait can cure retry: the network (timeouts, resets,
/// refused connections), 408, 429 and the 5xx statuses that mean "not now". A 404 or
/// bytes that do not decode would fail the same way again. The wait doubles with each
/// attempt and is jittered, so the rows of one screen that failed together do not
/// come back together; a server's Retry-After (in seconds) stretches it, up to a cap.
public struct RetryPolicy: Sendable {
    /// Attempts after the first; 0 = never retry.
    public var maxRetries = 3
    /// The wait before the first retry; each later one doubles it.
    public var baseDelayMilliseconds: Int64 = 250
    /// No backoff waits longer than this.
    public var maxDelayMilliseconds: Int64 = 8_000
    /// A Retry-After beyond this is cut to it: a server may not park a row for hours.
    public var maxRetryAfterMilliseconds: Int64 = 30_000

    public init() {}

    /// Whether a failure with this error is worth another attempt.
    public static func isTransient(_ error: LoaderError) -> Bool {
        switch error {
        case .network:
            return true
        case .http(let status):
            return status == 408 || status == 429 || status == 500 || status == 502 || status == 503
                || status == 504
        default:
            return false
        }
    }

    /// How long to wait before retry number `retry` (1 for the first). `unit` is a
    /// random number in 0..<1: the wait is half the doubled delay plus up to as much
    /// again ("equal jitter"), never less than the server's Retry-After.
    public func delay(beforeRetry retry: Int, retryAfterMilliseconds: Int64?, unit: Double) -> Int64 {
        let doublings = Int64(max(0, min(retry - 1, 30)))
        let full = min(maxDelayMilliseconds, baseDelayMilliseconds.multipliedClamped(by: 1 << doublings))
        let jitter = Int64(Double(full / 2) * min(max(unit, 0), 1))
        let backoff = full - full / 2 + jitter
        guard let asked = retryAfterMilliseconds, asked > 0 else { return backoff }
        return max(backoff, min(asked, maxRetryAfterMilliseconds))
    }
}

extension Int64 {
    /// `self * other` without trapping, for delays built from configured values.
    func multipliedClamped(by other: Int64) -> Int64 {
        let (product, overflow) = multipliedReportingOverflow(by: other)
        return overflow ? Int64.max : product
    }
}
