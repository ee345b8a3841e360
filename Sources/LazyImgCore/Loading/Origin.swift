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
        guard let handle = curl_url() else { return nil }
        defer { curl_url_cleanup(handle) }
        let parsed = url.withCString { curl_url_set(handle, CURLUPART_URL, $0, 0) }
        guard parsed == CURLUE_OK,
              let scheme = Self.part(handle, CURLUPART_SCHEME),
              let host = Self.part(handle, CURLUPART_HOST), !host.isEmpty,
              let port = Self.part(handle, CURLUPART_PORT, flags: UInt32(CURLU_DEFAULT_PORT)).flatMap({ Int($0) })
        else { return nil }
        self.scheme = scheme.lowercased()
        self.host = host.lowercased()
        self.port = port
    }

    /// A configured origin, "scheme://host[:port]" and nothing more: a path, query,
    /// fragment or user info there is a mistake the host should hear about.
    public init?(configured text: String) {
        let url = ImageURL(text)
        guard let origin = Origin(url), let handle = curl_url() else { return nil }
        defer { curl_url_cleanup(handle) }
        _ = url.withCString { curl_url_set(handle, CURLUPART_URL, $0, 0) }
        guard Self.part(handle, CURLUPART_PATH) ?? "/" == "/",
              Self.part(handle, CURLUPART_QUERY) == nil, Self.part(handle, CURLUPART_FRAGMENT) == nil,
              Self.part(handle, CURLUPART_USER) == nil
        else { return nil }
        self = origin
    }

    public var description: String { "\(scheme)://\(host):\(port)" }

    private static func part(_ handle: OpaquePointer, _ what: CURLUPart, flags: UInt32 = 0) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard curl_url_get(handle, what, &value, flags) == CURLUE_OK, let value else { return nil }
        defer { curl_free(value) }
        return String(cString: value)
    }
}
