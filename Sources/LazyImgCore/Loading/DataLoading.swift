/// One fetch of a URL's bytes.
public struct DataRequest: Sendable {
    public var url: String
    /// Whole-transfer limit; 0 = none.
    public var timeoutMilliseconds: Int
    /// The body may not be larger; the transfer stops with `.tooLarge` once it is.
    /// 0 = none.
    public var maxResponseBytes: Int
    public var userAgent: String
    /// "Name: value" lines sent with every request.
    public var headers: [String]

    public init(url: String, timeoutMilliseconds: Int = 15_000, maxResponseBytes: Int = 32 << 20,
                userAgent: String = "lazyimg", headers: [String] = []) {
        self.url = url
        self.timeoutMilliseconds = timeoutMilliseconds
        self.maxResponseBytes = maxResponseBytes
        self.userAgent = userAgent
        self.headers = headers
    }
}

extension DataRequest {
    /// No CR, LF or NUL: libcurl sends header values as given, so a line break would
    /// smuggle in a second header or request, and a NUL would cut the C string short.
    public static func isSingleHeaderLine(_ text: String) -> Bool {
        !text.utf8.contains { $0 == 0 || $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\n") }
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
    /// What the final response said about caching its body.
    public var cacheHeaders: HTTPCacheHeaders

    public init(result: Result<[UInt8], LoaderError>, httpStatus: Int, bytesReceived: Int = 0,
                cacheHeaders: HTTPCacheHeaders = HTTPCacheHeaders()) {
        self.result = result
        self.httpStatus = httpStatus
        self.bytesReceived = bytesReceived
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
    /// Stops every transfer (no completions follow) and joins the thread; idempotent.
    func shutdown()
}
