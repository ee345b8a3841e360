/// Downloads running per host, and the jobs held back because their host already
/// runs as many as libcurl may run there at once (`maxHostConnections`).
///
/// A job started beyond that waited inside libcurl for a connection while holding
/// one of the loader's download slots: 16 rows on a host that accepts and never
/// answers took its 10 connections, parked the other 6 slots in libcurl's queue,
/// and a row of another host waited out their timeout. Held back here, such a job
/// takes no slot, and goes back to the pump once its host frees one.
struct HostSlots {
    private var running: [ArraySlice<UInt8>: Int] = [:]
    private var held: [ArraySlice<UInt8>: Set<CacheKey>] = [:]

    /// Whether `url`'s host runs `limit` downloads already (never for file://).
    func isFull(_ url: ImageURL, limit: Int) -> Bool {
        guard let host = url.httpAuthority else { return false }
        return running[host, default: 0] >= limit
    }

    mutating func didStart(_ url: ImageURL) {
        guard let host = url.httpAuthority else { return }
        running[host, default: 0] += 1
    }

    /// One of `url`'s downloads ended. Returns the jobs held back for its host, to be
    /// offered to the pump again.
    mutating func didEnd(_ url: ImageURL) -> Set<CacheKey> {
        guard let host = url.httpAuthority, let count = running[host] else { return [] }
        running[host] = count > 1 ? count - 1 : nil
        return held.removeValue(forKey: host) ?? []
    }

    /// Holds `key` back until its host frees a slot.
    mutating func hold(_ key: CacheKey) {
        guard let host = key.url.httpAuthority else { return }
        held[host, default: []].insert(key)
    }
}
