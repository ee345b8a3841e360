/// Data fetches: any URL's bytes (a feed page) through the loader's own network stack,
/// with its limits, timeout and headers, ahead of every image. One event per ticket.
extension ImageLoader {
    /// Starts fetching `url`; its one `.data` (or `.failed`) event follows for the
    /// returned ticket. Not cached, not coalesced, not held back while the list moves:
    /// the host asks for a page exactly when it needs one.
    public func fetch(url: ImageURL) throws(LoaderError) -> UInt64 {
        guard URLCheck.isLoadable(url, allowingFiles: configuration.allowFileURLs) else { throw .badURL }
        let ticket = try front.withLock { f throws(LoaderError) in
            guard !f.isShuttingDown else { throw .shutdown }
            let ticket = f.openFetchTicket(url: url)
            loop.queue(host: .fetch(ticket: ticket, url: url))
            return ticket
        }
        wake.wake(urgent: true)
        return ticket
    }
}
