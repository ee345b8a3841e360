/// The answers of recent lookups, kept on the network thread for as long as libcurl
/// keeps its own (60 s), so the rows of one host look its name up once. Bounded:
/// a feed naming thousands of hosts keeps only the newest answers.
struct ResolvedNames {
    static let lifetimeMilliseconds: Int64 = 60_000
    static let capacity = 256

    private var answers: [String: (addresses: [String], at: Int64)] = [:]
    /// The names in `answers`, oldest answer first.
    private var order: [String] = []

    func addresses(of name: String, now: Int64) -> [String]? {
        guard let answer = answers[name], now - answer.at < Self.lifetimeMilliseconds else { return nil }
        return answer.addresses
    }

    mutating func insert(_ addresses: [String], for name: String, now: Int64) {
        if answers.updateValue((addresses, now), forKey: name) != nil { order.removeAll { $0 == name } }
        order.append(name)
        var dropped = 0
        while dropped < order.count, let oldest = answers[order[dropped]],
              order.count - dropped > Self.capacity || now - oldest.at >= Self.lifetimeMilliseconds {
            answers[order[dropped]] = nil
            dropped += 1
        }
        order.removeFirst(dropped)
    }
}
