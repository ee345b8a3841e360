/// What the scheduler decided, for the loader's effect runner (`SchedulerLoop`) to
/// carry out, in order. Nothing here decides anything further.
enum SchedulerEffect: Sendable {
    /// Download `url` as transfer `id`; `validators` revalidate a stale disk copy.
    case startDownload(TransferID, ImageURL, validators: [String]?)
    case startFetch(TransferID, ImageURL)
    /// `keepingBytes`: a download nothing wants now, whose row may come back (a
    /// wrong prediction): the transport may keep what came and ask for the rest.
    case cancelTransfer(TransferID, keepingBytes: Bool)
    /// Look for the job's image on disk, on a worker, at this priority (lower first).
    case readDisk(job: UInt64, key: CacheKey, priority: Int)
    case decode(DecodeWork)
    /// A downloading job's prefix to decode at its box, behind every final decode;
    /// an interlaced PNG's only if it holds more than `passesShown` passes.
    case decodePreview(job: UInt64, key: CacheKey, bytes: [UInt8], passesShown: Int)
    /// A preview for a live ticket: dropped if the host ended the ticket meanwhile.
    case preview(LoaderEvent)
    /// Into the memory cache. `unseenPrefetch`: fetched unasked, not yet shown, so
    /// the first memory hit on it reports `prefetchShown`.
    case cache(DecodedImage, CacheKey, unseenPrefetch: Bool)
    /// The host's requests answer with this error at once until it expires.
    case recordFailure(ImageURL, FailureRecords.Failure)
    /// The one event of a ticket, unless the host's call ended the ticket first.
    case finish(LoaderEvent)
    /// An event of no ticket (NEED_PAGE).
    case event(LoaderEvent)
}

/// A downloaded file to decode, and how to keep it on disk afterwards.
struct DecodeWork: Sendable {
    let job: UInt64
    let key: CacheKey
    let bytes: [UInt8]
    let httpStatus: Int
    let source: ImageSource
    let origin: DownloadOrigin
    let headers: HTTPCacheHeaders
    /// Lower runs first: the rank of the job's most urgent row.
    let priority: Int
    /// Whether the job is still wanted when a worker reaches it.
    let claim: DecodeClaim
}
