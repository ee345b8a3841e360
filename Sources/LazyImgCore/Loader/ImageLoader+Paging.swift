/// Paged lists: the loader tells the host when the list nears its last row, so the
/// next page is fetched before the user gets there (`Scheduler.askForPageIfNearEnd`).
extension ImageLoader {
    /// Asks for a page (one `.needPage` event) when the list reaches within
    /// `distanceRows` of its end, while `hasMore`. Re-arms: after a failed page the
    /// host calls this again; `hasMore = false` stops the events.
    public func setPaging(distanceRows: Int, hasMore: Bool) throws(LoaderError) {
        guard !isShutDown else { throw .shutdown }
        loop.post(host: .paging(distanceRows: max(0, distanceRows), hasMore: hasMore), urgent: true)
    }
}
