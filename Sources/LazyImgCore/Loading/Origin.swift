import CCurl

/// A URL's origin: scheme, host and port, the unit custom headers are scoped to.
///
/// Parsed with libcurl's own URL parser, so the host compared here is the host
/// libcurl connects to (user info, IPv6 brackets and default ports handled the same
/// way). Scheme and host compare case-insensitively (ASCII), as URLs do.
public struct Origin: Hashable, Sendable, CustomStringConvertible {
    public let scheme: String
    public let host: String
    public let port: Int

    /// nil when libcurl cannot parse the URL or it has no host.
    public init?(_ url: ImageURL) {
        guard let parsed = CurlURL(url) else { return nil }
        self.init(parsed)
    }

    private init?(_ parsed: CurlURL) {
        guard let scheme = parsed.part(CURLUPART_SCHEME),
              let host = parsed.part(CURLUPART_HOST), !host.isEmpty,
              let port = parsed.part(CURLUPART_PORT, flags: CURLU_DEFAULT_PORT).flatMap({ Int($0) })
        else { return nil }
        self.scheme = scheme.lowercased()
        self.host = host.lowercased()
        self.port = port
    }

    /// A configured origin, "scheme://host[:port]" and nothing more: a path, query,
    /// fragment or user info there is a mistake the host should hear about.
    public init?(configured text: String) {
        guard let parsed = CurlURL(ImageURL(text)), parsed.part(CURLUPART_PATH) ?? "/" == "/",
              parsed.part(CURLUPART_QUERY) == nil, parsed.part(CURLUPART_FRAGMENT) == nil,
              parsed.part(CURLUPART_USER) == nil
        else { return nil }
        self.init(parsed)
    }

    public var description: String { "\(scheme)://\(host):\(port)" }
}
