/// Counters since the loader was made, and the memory cache's current size.
public struct LoaderStats: Sendable, Equatable {
    public var requests: UInt64 = 0
    public var memoryHits: UInt64 = 0
    /// Next to the other two a host's request counts (`LoaderFront`'s lines).
    public var deferred: UInt64 = 0
    public var downloadsStarted: UInt64 = 0
    public var downloadsCoalesced: UInt64 = 0
    public var downloadsCancelled: UInt64 = 0
    public var downloadsFailed: UInt64 = 0
    public var bytesDownloaded: UInt64 = 0
    public var imagesDecoded: UInt64 = 0
    public var eventsDelivered: UInt64 = 0
    public var memoryCacheBytes: UInt64 = 0
    public var memoryCacheCount: UInt64 = 0
    public var inFlight: UInt64 = 0
    /// Requests answered from memory with an image the loader fetched unasked.
    public var prefetchHits: UInt64 = 0
    /// Images the loader fetched unasked whose rows left the window unseen, and
    /// their bytes.
    public var prefetchWasted: UInt64 = 0
    public var prefetchWasteBytes: UInt64 = 0
    /// Downloads started again after a transient failure.
    public var downloadsRetried: UInt64 = 0
    /// Downloaded files not decoded because their rows left before a decode thread was free.
    public var decodesSkipped: UInt64 = 0
    /// Jobs answered from the disk cache without the network.
    public var diskHits: UInt64 = 0
    /// Stale disk copies the server confirmed with 304 Not Modified.
    public var diskRevalidations: UInt64 = 0
    /// The disk cache's size and entries now, its evictions and failed writes since
    /// it was opened by this loader.
    public var diskBytes: UInt64 = 0
    public var diskEntries: UInt64 = 0
    public var diskEvictions: UInt64 = 0
    public var diskWriteErrors: UInt64 = 0
    /// Body bytes not downloaded again: kept when a download stopped early and
    /// completed by a Range request (`DataResponse.resumedBytes`).
    public var bytesResumed: UInt64 = 0
    /// Animation frames decoded into a player's buffer.
    public var framesDecoded: UInt64 = 0
    /// Now: what the animations' buffered frames and canvases hold (part of
    /// `memoryCacheBytes`).
    public var animationBytes: UInt64 = 0

    public init() {}
}

extension UInt64 {
    /// `self + count` without trapping, for counters of bytes that came from outside;
    /// a negative count adds nothing.
    func addingClamped(_ count: Int) -> UInt64 {
        let (sum, overflow) = addingReportingOverflow(UInt64(clamping: count))
        return overflow ? .max : sum
    }
}
