/// Data fetches (a feed page, not an image) waiting for a transfer slot or running.
/// They are never cached or coalesced: each ticket is its own transfer. Waiting ones
/// start in the order they came, ahead of every image.
struct DataFetches {
    struct Fetch {
        let ticket: UInt64
        let url: ImageURL
    }

    private var waiting: [Fetch] = []
    private var running: [TransferID: Fetch] = [:]

    var hasWaiting: Bool { !waiting.isEmpty }

    mutating func enqueue(_ fetch: Fetch) {
        waiting.append(fetch)
    }

    /// Takes the oldest waiting fetch, which the caller starts as `transfer`.
    mutating func startNext(as transfer: TransferID) -> Fetch? {
        guard !waiting.isEmpty else { return nil }
        let fetch = waiting.removeFirst()
        running[transfer] = fetch
        return fetch
    }

    /// The fetch `transfer` served, now finished; nil when it was cancelled.
    mutating func finish(_ transfer: TransferID) -> Fetch? {
        running.removeValue(forKey: transfer)
    }

    /// Removes the fetch of `ticket`: with its transfer when it was running, nil as
    /// transfer when it was still waiting; nil when no such fetch is live.
    mutating func remove(ticket: UInt64) -> (fetch: Fetch, transfer: TransferID?)? {
        if let index = waiting.firstIndex(where: { $0.ticket == ticket }) {
            return (waiting.remove(at: index), nil)
        }
        guard let (transfer, fetch) = running.first(where: { $0.value.ticket == ticket }) else { return nil }
        running[transfer] = nil
        return (fetch, transfer)
    }

    /// Every live ticket, oldest first.
    var tickets: [UInt64] {
        (waiting.map(\.ticket) + running.values.map(\.ticket)).sorted()
    }
}
