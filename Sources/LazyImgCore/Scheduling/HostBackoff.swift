/// A short back-off per host, opened by repeated failures (a circuit breaker).
///
/// When a host is down every row of the list fails there in turn, each one holding a
/// download slot until its connection times out. After `threshold` transient
/// failures in a row, no download to that host starts for a while; rows of other
/// hosts use the slots meanwhile. Downloads after the pause are probes: a
/// success closes the breaker, a failure opens it again for twice as long (up to
/// `maxPauseMilliseconds`). Hosts are compared as the URL's bytes, like cache keys.
public struct HostBackoff: Sendable {
    private struct Host {
        var failuresInARow = 0
        var lastPause: Int64 = 0
        var pauseEnds: Int64 = 0
    }

    public var threshold = 3
    public var pauseMilliseconds: Int64 = 1_000
    public var maxPauseMilliseconds: Int64 = 16_000
    private var hosts: [ArraySlice<UInt8>: Host] = [:]
    /// The latest moment any pause ends: a quick "nothing is open" check
    /// for the scheduler, which asks once per job it considers.
    public private(set) var latestPauseEnd: Int64 = .min

    public init() {}

    /// Records a transient failure. Returns when the pause ends if this failure
    /// (re)started one, else nil.
    public mutating func recordFailure(of url: ImageURL, now: Int64) -> Int64? {
        guard let host = url.httpAuthority else { return nil }
        // Bound the table, as FailureRecords does: forget hosts that are not paused.
        if hosts.count >= 1024 { hosts = hosts.filter { now < $0.value.pauseEnds } }
        var entry = hosts[host, default: Host()]
        entry.failuresInARow += 1
        guard entry.failuresInARow >= threshold else {
            hosts[host] = entry
            return nil
        }
        // A failure while still paused (downloads that were already running) does not
        // stretch the pause again.
        guard now >= entry.pauseEnds else {
            hosts[host] = entry
            return nil
        }
        entry.lastPause = entry.lastPause == 0 ? pauseMilliseconds
            : min(maxPauseMilliseconds, entry.lastPause.multipliedClamped(by: 2))
        entry.pauseEnds = now.addingClamped(entry.lastPause)
        latestPauseEnd = max(latestPauseEnd, entry.pauseEnds)
        hosts[host] = entry
        return entry.pauseEnds
    }

    /// A download from the host worked: it is healthy again.
    public mutating func recordSuccess(of url: ImageURL) {
        guard !hosts.isEmpty, let host = url.httpAuthority else { return }
        hosts[host] = nil
    }

    /// When downloads from `url`'s host may start again, if they may not now.
    public func pausedUntil(_ url: ImageURL, now: Int64) -> Int64? {
        guard now < latestPauseEnd, let host = url.httpAuthority, let entry = hosts[host],
              now < entry.pauseEnds else { return nil }
        return entry.pauseEnds
    }
}
