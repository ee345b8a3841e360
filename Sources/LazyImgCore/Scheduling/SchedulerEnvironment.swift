/// What the scheduler asks of the rest of the loader while it decides: answers that
/// live outside it and change under it, read at the moment of the decision. The
/// loader answers from its memory cache, transport and download budget; the
/// scheduler's tests answer with fakes.
protocol SchedulerEnvironment: AnyObject {
    /// The memory cache's image for `key`, without touching its recency.
    func cachedImage(_ key: CacheKey) -> DecodedImage?
    /// How far a running download has come (the nearly-done rule).
    func progress(of transfer: TransferID) -> TransferProgress?
    /// The download budget (`DownloadBudget`): what running downloads and files
    /// waiting to decode hold, a file joining the decode queue, one leaving it.
    var heldBytes: Int { get }
    func queueForDecode(_ bytes: Int)
    func leftDecodeQueue(_ bytes: Int)
}
