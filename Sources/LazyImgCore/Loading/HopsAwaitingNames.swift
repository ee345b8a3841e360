/// The hops that wait for their host name's addresses, outside the multi handle,
/// and the lookups they wait on: one per name, shared by all its hops. Network
/// thread only.
struct HopsAwaitingNames {
    struct Waiting {
        let hop: CurlTransfer.Hop
        let counters: TransferCounters
        let completion: @Sendable (TransferID, DataResponse) -> Void
        let lookup: HostLookup
        let name: String
    }

    private var hops: [TransferID: Waiting] = [:]
    /// The names asked of the resolver and not answered, and who waits on each.
    private var lookups: [String: Set<TransferID>] = [:]

    func contains(_ id: TransferID) -> Bool {
        hops[id] != nil
    }

    /// When the first waiting hop times out.
    var earliestDeadline: Int64? {
        hops.values.compactMap(\.hop.deadline).min()
    }

    /// Adds a hop. True when its name is not being looked up yet: ask the resolver.
    mutating func add(_ id: TransferID, _ waiting: Waiting) -> Bool {
        hops[id] = waiting
        let isNew = lookups[waiting.name] == nil
        lookups[waiting.name, default: []].insert(id)
        return isNew
    }

    /// The hops an answer for `name` lets go.
    mutating func answered(_ name: String) -> [(id: TransferID, waiting: Waiting)] {
        (lookups.removeValue(forKey: name) ?? []).compactMap { id in hops.removeValue(forKey: id).map { (id, $0) } }
    }

    /// Takes a hop out (cancelled, or timed out). Its name comes back when no other
    /// hop waits on that lookup any more: withdraw it if it has not begun.
    mutating func remove(_ id: TransferID) -> (waiting: Waiting, unwantedName: String?)? {
        guard let waiting = hops.removeValue(forKey: id) else { return nil }
        lookups[waiting.name]?.remove(id)
        return (waiting, lookups[waiting.name]?.isEmpty == true ? waiting.name : nil)
    }

    /// The resolver dropped a lookup before it began: no answer will come, and the
    /// next hop of that name must ask again.
    mutating func lookupWithdrawn(_ name: String) {
        lookups[name] = nil
    }

    /// The ids of the hops whose deadline has passed.
    func overdue(now: Int64) -> [TransferID] {
        hops.compactMap { id, waiting in waiting.hop.deadline.map { $0 <= now } == true ? id : nil }
    }

    mutating func removeAll() {
        hops = [:]
        lookups = [:]
    }
}
