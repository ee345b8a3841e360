/// The partial bodies a network keeps for downloads that may come back, within a
/// byte limit: a body that does not fit is not kept, and adding one drops the
/// oldest until it fits. A download takes its partial body out (`take`); if it
/// stops early again, it leaves a longer one.
///
/// Network thread only: transfers start, stop and end there.
struct PartialBodies {
    let limit: Int
    private var byKey: [PartialBody.Key: PartialBody] = [:]
    /// The keys of `byKey`, oldest first.
    private var order: [PartialBody.Key] = []
    /// What the kept bodies cost together; at most `limit`.
    private(set) var bytes = 0

    init(limit: Int) {
        self.limit = max(0, limit)
    }

    var isEmpty: Bool { byKey.isEmpty }

    mutating func keep(_ body: PartialBody, for key: PartialBody.Key) {
        _ = take(for: key)
        guard body.cost <= limit else { return }
        var dropped = 0
        while bytes + body.cost > limit, dropped < order.count {
            bytes -= byKey.removeValue(forKey: order[dropped])?.cost ?? 0
            dropped += 1
        }
        order.removeFirst(dropped)
        byKey[key] = body
        order.append(key)
        bytes += body.cost
    }

    /// Drops the bodies of `url` under any credentials; nil drops all.
    mutating func forget(_ url: ImageURL?) {
        for key in order where url == nil || key.url == url { _ = take(for: key) }
    }

    /// The partial body kept for `key`, no longer kept here.
    mutating func take(for key: PartialBody.Key) -> PartialBody? {
        guard let body = byKey.removeValue(forKey: key) else { return nil }
        order.removeAll { $0 == key }
        bytes -= body.cost
        return body
    }
}
