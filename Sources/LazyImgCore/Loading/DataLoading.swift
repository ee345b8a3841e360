/// One fetch of a URL's bytes.
public struct DataRequest: Sendable {
    public var url: ImageURL
    /// Whole-transfer limit (name lookup and redirect hops included, time paused for
    /// `memoryBudget` not); 0 = none.
    public var timeoutMilliseconds: Int
    /// The body may not be larger; the transfer stops with `.tooLarge` once it is.
    /// 0 = none.
    public var maxResponseBytes: Int
    public var userAgent: String
    /// "Name: value" lines, sent where `policy` allows.
    public var headers: [String]
    /// If-None-Match / If-Modified-Since lines from a cached copy of this URL's
    /// response. They are the resource's own, not the host's: sent on every hop,
    /// whatever `policy` says of the host's headers.
    public var validators: [String] = []
    /// Proxy, trusted authorities and the origins the headers may go to.
    public var policy: NetworkPolicy
    /// The memory the body may take, shared with the loader's decode queue; nil =
    /// within `maxResponseBytes` only. Not part of what makes two requests the same.
    public var memoryBudget: DownloadBudget?
    /// The media types to ask for (`DataRequest+Accept`); nil sends libcurl's default.
    public var accept: String? = nil
    /// The box an image request decodes into, when its download may end at a
    /// progressive JPEG's DC scans or an interlaced PNG's first pass (`FirstPass`):
    /// the body stops there when that is enough for this box, and the response is
    /// that start (`DataResponse.endsAtFirstPass`). nil fetches the whole body.
    public var firstPassBox: DecodeOptions? = nil
    /// The boxes of every request waiting on this download (`TransferCoalescer`; nil
    /// among them: the whole file), asked before a body fetched whole stops at its
    /// first pass: it stops only when that pass serves each of them. Called on the
    /// network thread. nil: this request's `firstPassBox` alone. Not part of what
    /// makes two requests the same.
    public var sharedBoxes: (@Sendable () -> [DecodeOptions?])? = nil
    /// Called as a progressive JPEG's scans complete, or an interlaced PNG grows,
    /// while the rest comes (previews); nil looks at no body. Only for bodies fetched
    /// whole: the start a request for `firstPassBox` asks for gives none, the rest
    /// fetched after it does. Not part of what makes two requests the same.
    public var onPrefix: PrefixSink? = nil

    public init(url: ImageURL, timeoutMilliseconds: Int = 15_000, maxResponseBytes: Int = 32 << 20,
                userAgent: String = "lazyimg", headers: [String] = [], policy: NetworkPolicy = NetworkPolicy()) {
        self.url = url
        self.timeoutMilliseconds = timeoutMilliseconds
        self.maxResponseBytes = maxResponseBytes
        self.userAgent = userAgent
        self.headers = headers
        self.policy = policy
    }
}

extension DataRequest {
    /// No control byte but HT: libcurl sends header values as given, so a line break
    /// would smuggle in a second header or request, a NUL would cut the C string
    /// short, and other controls (ESC, DEL) are not allowed in a field (RFC 9110 5.5).
    public static func isSingleHeaderLine(_ text: String) -> Bool {
        !text.utf8.contains { ($0 < 0x20 && $0 != UInt8(ascii: "\t")) || $0 == 0x7F }
    }
}

/// How a fetch ended. `httpStatus` is the last HTTP status seen (0 when none, as for
/// file:// or a failed connect).
public struct DataResponse: Sendable {
    public var result: Result<[UInt8], LoaderError>
    public var httpStatus: Int
    /// Response body bytes that arrived, also for failed transfers and for error pages
    /// that were discarded: what the loader counts as `bytes_downloaded`.
    public var bytesReceived: Int
    /// The server's Retry-After, when it sent one in seconds form (429, 503).
    public var retryAfterMilliseconds: Int64?
    /// What the final response said about caching its body.
    public var cacheHeaders: HTTPCacheHeaders
    /// Bytes of the body that did not come again: kept from an earlier download of
    /// the request that stopped early, and completed by a 206 (`bytesReceived`
    /// counts only the rest). 0 unless the result is a success.
    public var resumedBytes = 0
    /// The body is a file's start up to its first pass, as `FirstPass.decodable` makes
    /// it: it decodes for `DataRequest.firstPassBox` and for no larger box.
    public var endsAtFirstPass = false

    public init(result: Result<[UInt8], LoaderError>, httpStatus: Int, bytesReceived: Int = 0,
                retryAfterMilliseconds: Int64? = nil, cacheHeaders: HTTPCacheHeaders = HTTPCacheHeaders()) {
        self.result = result
        self.httpStatus = httpStatus
        self.bytesReceived = bytesReceived
        self.retryAfterMilliseconds = retryAfterMilliseconds
        self.cacheHeaders = cacheHeaders
    }
}

/// Identifies a transfer to its `DataLoading`; chosen by the caller, unique per loader.
public typealias TransferID = UInt64

/// Fetches bytes for URLs off the caller's thread.
///
/// `start` and `cancel` never block and never call `completion` synchronously.
/// `completion` is called exactly once per started transfer unless it was cancelled
/// first; after `cancel` it may still arrive if the transfer was already finishing,
/// so callers ignore completions of transfers they no longer know.
public protocol DataLoading: AnyObject, Sendable {
    func start(_ id: TransferID, _ request: DataRequest,
               completion: @escaping @Sendable (TransferID, DataResponse) -> Void)
    func cancel(_ id: TransferID)
    /// As `cancel`, for a transfer whose bytes may be wanted again soon (its row
    /// left the window): the start of its body may be kept, so that a later start
    /// of the same request asks only for the rest (`DataResponse.resumedBytes`).
    func cancelKeepingBytes(_ id: TransferID)
    /// The progress of a running transfer, nil when unknown or finished; cheap and
    /// non-blocking, as the scheduler asks with its lock held.
    func progress(of id: TransferID) -> TransferProgress?
    /// Stops every transfer (no completions follow) and joins the thread; idempotent.
    func shutdown()
    /// As `start`, unless a response for the same request ended a moment ago and may
    /// be used again: then no transfer starts, `completion` is never called, and that
    /// response is returned for the caller to hand on off its own thread.
    func startOrReuse(_ id: TransferID, _ request: DataRequest,
                      completion: @escaping @Sendable (TransferID, DataResponse) -> Void) -> DataResponse?
    /// Forgets the responses kept for reuse: those of `url`, or all of them (nil).
    func forgetRecentResponses(of url: ImageURL?)
}

extension DataLoading {
    /// A transport that keeps no responses starts every request.
    public func startOrReuse(_ id: TransferID, _ request: DataRequest,
                             completion: @escaping @Sendable (TransferID, DataResponse) -> Void) -> DataResponse? {
        start(id, request, completion: completion)
        return nil
    }

    public func forgetRecentResponses(of url: ImageURL?) {}

    /// A transport that keeps no partial bodies just cancels.
    public func cancelKeepingBytes(_ id: TransferID) {
        cancel(id)
    }
}
