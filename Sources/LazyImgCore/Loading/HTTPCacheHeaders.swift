/// The response headers that say how a body may be cached: all the disk cache needs
/// from a response besides its body. Taken from the final response after redirects.
public struct HTTPCacheHeaders: Sendable, Equatable {
    public var etag: String?
    public var lastModified: String?
    public var cacheControl: String?
    /// The request header fields the body depends on (RFC 9111 §4.1).
    public var vary: String?

    public init(etag: String? = nil, lastModified: String? = nil, cacheControl: String? = nil, vary: String? = nil) {
        self.etag = etag
        self.lastModified = lastModified
        self.cacheControl = cacheControl
        self.vary = vary
    }
}
