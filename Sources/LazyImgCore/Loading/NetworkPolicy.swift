/// What a loader's requests may trust and where its secrets may go: the proxy, the
/// CA file, and the origins that receive the custom headers. One per loader.
public struct NetworkPolicy: Sendable, Hashable {
    public enum Proxy: Sendable, Hashable {
        /// libcurl's default: http_proxy, https_proxy, all_proxy and no_proxy.
        case environment
        /// Straight to the server, whatever the environment says.
        case none
        /// This proxy URL for every request.
        case url(String)
    }

    public var proxy: Proxy = .environment
    /// The authorities to trust instead of the system's; nil = the system's.
    /// Verification itself can never be turned off.
    public var trustedAuthorities: TrustedAuthorities?
    /// The origins custom headers are sent to. nil = the origin of the URL the
    /// transfer started with, and no other: a redirect to another origin drops them.
    public var headerOrigins: Set<Origin>?

    public init() {}

    /// The custom headers that may go to `url`, for a transfer that started at
    /// `firstURL`: all or none.
    func headers(_ headers: [String], for url: ImageURL, startingAt firstURL: ImageURL) -> [String] {
        guard !headers.isEmpty, let origin = Origin(url) else { return [] }
        if let headerOrigins {
            return headerOrigins.contains(origin) ? headers : []
        }
        return origin == Origin(firstURL) ? headers : []
    }
}
