/// What of a request a cached response depends on besides its URL: the credentials
/// it carries (the disk cache files responses under them) and the values of its
/// header fields (what a response's Vary compares).
extension DataRequest {
    /// A SHA-256 of the custom header lines, in order, and of the origins they may
    /// reach; empty when the request carries no credentials: no custom headers, or
    /// an empty `headerOrigins`, so they go nowhere. Authorization, Cookie and any
    /// other header count alike, for the library cannot tell which ones a server
    /// answers differently to.
    ///
    /// Where the headers may go is the policy's rule, not the hops one transfer
    /// took: a cached response is looked for before its transfer, and a redirect may
    /// take the headers to an origin of `headerOrigins` other than the URL's own. So
    /// two requests share an entry only when they would send the same lines to the
    /// same origins on any hop, and different or absent credentials never do.
    public var credentialScope: [UInt8] {
        guard !headers.isEmpty, policy.headerOrigins?.isEmpty != true else { return [] }
        let origins = policy.headerOrigins.map { $0.map(\.description).sorted() } ?? ["(the URL's own origin)"]
        return SHA256.digest(Array((headers + [""] + origins).joined(separator: "\n").utf8))
    }

    /// The value this request sends the URL's own origin for the header field `name`
    /// (lowercase): its custom headers' (joined with ", " when repeated), else the
    /// User-Agent for "user-agent", else "" (the fields libcurl adds are the same
    /// for every request).
    func value(ofHeader name: String) -> String {
        let lines = policy.headers(headers, for: url, startingAt: url)
        let values = lines.compactMap { line -> String? in
            let parts = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0].lowercased() == name else { return nil }
            return String(parts[1].drop { $0 == " " || $0 == "\t" })
        }
        if values.isEmpty && name == "user-agent" { return userAgent }
        return values.joined(separator: ", ")
    }
}
