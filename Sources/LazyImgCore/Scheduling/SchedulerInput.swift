/// What the scheduler is told. The host's calls arrive in the order they were made;
/// the network thread's and the workers' results as they come; the timer when a
/// moment the scheduler asked for has come.
///
/// The cases with large payloads are indirect: each payload in a box of its own
/// size. Inline, the payloads shared 152 bytes and a small case left most of the
/// word holding the case tag unwritten; reading the tag was then, to valgrind, a
/// branch on uninitialised memory on every input (make memcheck, check-install).
/// The cases a frame makes, the view calls and a request, stay inline (24 bytes,
/// no spare bits, so the tag has a byte of its own): their push allocates the
/// queue's node and nothing else.
enum SchedulerInput: Sendable {
    // The host's calls. Each was answered already (from the snapshot the host's
    // threads read): these are the decisions it left to the scheduler.
    /// A scroll state and velocity, timed by the loader's clock when the host gave it
    /// (pushed with a cycle stamp, which the loop turns into the clock's time).
    case scroll(ScrollState, velocity: Double, at: Int64)
    case visible(Range<Int>)
    /// Empty: the host withdrew its target.
    case target(Range<Int>)
    /// A request that missed the memory cache; its ticket is live. The row's key
    /// is the scheduler's `rows[row]`: the host pushed the list before any request
    /// made for it. `imagesCached`: how many images the scheduler had had cached
    /// when the host looked (`LoaderFront.imagesCached`).
    case request(ticket: UInt64, row: Int, imagesCached: UInt64)
    /// The host cancelled a live ticket (its CANCELLED event is queued already).
    case cancel(ticket: UInt64)
    indirect case fetch(ticket: UInt64, url: ImageURL)
    /// The list was replaced (every image ticket before it ended CANCELLED) or grew.
    indirect case listReplaced([CacheKey?])
    indirect case listAppended([CacheKey?])
    case paging(distanceRows: Int, hasMore: Bool)
    /// A memory hit showed an image the loader had fetched unasked.
    indirect case prefetchShown(CacheKey)

    // The network thread's and the workers' results.
    /// `encoded`: the image the host decodes itself, made on the network thread when
    /// no disk cache stands between (else the decode worker makes it). `wallClock`:
    /// seconds since the epoch when it ended, for a revalidated disk copy's metadata.
    indirect case downloaded(TransferID, DataResponse, encoded: Result<DecodedImage, LoaderError>?, wallClock: Int64)
    indirect case fetched(TransferID, DataResponse)
    /// A download's body so far decodes to a picture (`ReceivedPrefix`).
    indirect case receivedPrefix(TransferID, ReceivedPrefix)
    /// A preview's decode ran, or was skipped (nil): the workers had finals waiting,
    /// or the prefix decoded to nothing new (`PreviewDecode`). `passes`: an
    /// interlaced PNG's passes it shows.
    indirect case previewDecoded(job: UInt64, key: CacheKey, DecodedImage?, passes: Int)
    indirect case diskRead(job: UInt64, key: CacheKey, DiskLookup)
    /// A decode ran. `message` describes a failure; `releasedBytes` are the file's
    /// bytes given back to the download budget now (nil while a disk write still
    /// holds them: `fileReleased` follows).
    indirect case decoded(job: UInt64, key: CacheKey, Result<DecodedImage, LoaderError>, httpStatus: Int, message: String,
                 source: ImageSource, releasedBytes: Int?)
    /// A worker found the job unwanted when its turn came and dropped the file.
    indirect case decodeSkipped(job: UInt64, key: CacheKey, releasedBytes: Int)
    /// A disk write is done with a decoded file's bytes.
    case fileReleased(Int)

    /// A retry's wait or a host's pause that the scheduler asked to be woken for ended.
    case timer
    case shutdown
}

/// What the disk held for a job.
enum DiskLookup: Sendable {
    /// `decoded`: made from the original, not read as a thumbnail.
    case image(DecodedImage, decoded: Bool)
    /// Present but stale: revalidate it (and serve it if the network fails).
    case stale(DiskCache.Entry)
    case miss
}

/// Where a download's bytes came from in the end.
enum DownloadOrigin: Equatable, Sendable {
    case network
    /// The network, up to a file's first pass (`DataResponse.endsAtFirstPass`): the
    /// bytes serve this box only, so only its thumbnail is kept, and a PNG's start
    /// decodes through `PNGInterlacedPrefix`.
    case firstPass
    /// A 304 confirmed the stale copy; store it again with this metadata.
    case revalidated(HTTPCacheMetadata)
    /// The network failed and the stale copy answered instead.
    case stale
}
