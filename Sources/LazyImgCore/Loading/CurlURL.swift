import CCurl

/// A URL as libcurl's own parser (curl_url) reads it, so the parts looked at here are
/// the ones libcurl connects to: user info, IPv6 brackets, default ports and IPv4
/// forms handled the same way.
final class CurlURL {
    private let handle: OpaquePointer

    /// nil when libcurl cannot parse the URL (or has no memory for it).
    init?(_ url: ImageURL) {
        guard let handle = curl_url() else { return nil }
        guard url.withCString({ curl_url_set(handle, CURLUPART_URL, $0, 0) }) == CURLUE_OK else {
            curl_url_cleanup(handle)
            return nil
        }
        self.handle = handle
    }

    deinit {
        curl_url_cleanup(handle)
    }

    /// One part, nil when the URL has none (`flags`: CURLU_DEFAULT_PORT, CURLU_PUNYCODE).
    func part(_ what: CURLUPart, flags: Int32 = 0) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard curl_url_get(handle, what, &value, UInt32(flags)) == CURLUE_OK, let value else { return nil }
        defer { curl_free(value) }
        return String(cString: value)
    }
}
