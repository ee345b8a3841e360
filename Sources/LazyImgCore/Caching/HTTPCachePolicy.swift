import Glibc

/// RFC 9111, the part an image cache needs: what a response allows to be stored, how
/// long a stored body is fresh, and how a stale one is revalidated.
///
/// A response that says nothing about freshness (no max-age, no no-cache) counts as
/// fresh until removed: image URLs almost never change their bytes, and this is what
/// lets a restart show the list without asking the server about every image.
///
/// The disk cache is the user's private cache (a directory only the user owns), so
/// `private` responses are kept; but each is kept under the credentials of the
/// request that fetched it (`DataRequest.credentialScope`), and only a request with
/// the same ones is answered with it, as RFC 9111 §3.5 asks of a cache that
/// processes share. `Vary` is honoured as §4.1 says: the entry keeps the request's
/// values of the fields it names, and a request with other values misses;
/// `Vary: *` is never stored.
extension HTTPCacheMetadata {
    /// The metadata to store for a response received at `now` (Unix seconds).
    public init(headers: HTTPCacheHeaders, now: Int64) {
        let directives = Self.directives(headers.cacheControl)
        self.init(etag: headers.etag, lastModified: headers.lastModified,
                  maxAgeSeconds: directives.maxAge, noCache: directives.noCache, storedAt: now)
    }

    /// Whether a response with these headers may be kept at all: not no-store, and
    /// not `Vary: *`, which no later request matches.
    public static func allowsStoring(_ headers: HTTPCacheHeaders) -> Bool {
        !directives(headers.cacheControl).noStore && !varyNames(headers.vary).contains("*")
    }

    /// Whether the stored body may be used at `now` without asking the server.
    /// `storedAt` may come from a file anyone could have written: any value is
    /// answered, none traps.
    public func isFresh(now: Int64) -> Bool {
        if noCache { return false }
        guard let maxAgeSeconds else { return true }
        let (age, overflow) = now.subtractingReportingOverflow(storedAt)
        return !overflow && age >= 0 && age < maxAgeSeconds
    }

    /// The lines `selectingHeaders` keeps for a response whose Vary is `vary`,
    /// fetched with `request`: each named field, lowercased and sorted, with the
    /// value the request sent to the URL's origin ("" when it sent none). nil when
    /// Vary names nothing.
    public static func selectingHeaders(vary: String?, of request: DataRequest) -> String? {
        let names = varyNames(vary)
        guard !names.isEmpty else { return nil }
        return names.map { "\($0): \(request.value(ofHeader: $0))\n" }.joined()
    }

    /// Whether the stored response may answer `request`: it sends the same values
    /// of the fields the response's Vary named.
    public func isSelected(by request: DataRequest) -> Bool {
        guard let selectingHeaders else { return true }
        let names = selectingHeaders.split(separator: "\n").map { $0.prefix { $0 != ":" } }.joined(separator: ",")
        return Self.selectingHeaders(vary: names, of: request) == selectingHeaders
    }

    /// After a 304 at `now`: fresh again, with whatever the 304 said replacing what
    /// it repeats (RFC 9111 §4.3.4).
    public func revalidated(by headers: HTTPCacheHeaders, now: Int64) -> HTTPCacheMetadata {
        var refreshed = self
        refreshed.storedAt = now
        if let etag = headers.etag { refreshed.etag = etag }
        if let lastModified = headers.lastModified { refreshed.lastModified = lastModified }
        if headers.cacheControl != nil {
            let directives = Self.directives(headers.cacheControl)
            refreshed.maxAgeSeconds = directives.maxAge
            refreshed.noCache = directives.noCache
        }
        return refreshed
    }

    /// The conditional request lines that ask "has it changed?".
    public var validatorHeaders: [String] {
        var lines: [String] = []
        if let etag { lines.append("If-None-Match: \(etag)") }
        if let lastModified { lines.append("If-Modified-Since: \(lastModified)") }
        return lines.filter(DataRequest.isSingleHeaderLine)
    }

    /// The wall clock in Unix seconds: freshness must survive restarts, so the
    /// monotonic clock will not do.
    public static var now: Int64 { Int64(time(nil)) }

    private static func directives(_ value: String?) -> (maxAge: Int64?, noCache: Bool, noStore: Bool) {
        var result: (maxAge: Int64?, noCache: Bool, noStore: Bool) = (nil, false, false)
        for part in (value ?? "").lowercased().split(separator: ",") {
            let directive = part.split(separator: "=", maxSplits: 1).map { $0.trimmingSpaces }
            switch directive.first {
            case "no-store": result.noStore = true
            case "no-cache": result.noCache = true
            case "max-age" where directive.count == 2:
                result.maxAge = deltaSeconds(directive[1].trimmingCharacters(quotes: true))
            default: break
            }
        }
        return result
    }
}

extension HTTPCacheMetadata {
    /// A max-age value: digits only, else 0, for a malformed one makes the response
    /// stale (RFC 9111 §4.2.1; "-5" too, which would otherwise read back from disk
    /// as "none"); one too large for 2^31 is 2^31 (§1.2.2).
    static func deltaSeconds(_ text: String) -> Int64 {
        let digits = Array(text.utf8)
        guard !digits.isEmpty, digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return 0 }
        return min(Int64(text) ?? Int64.max, 1 << 31)
    }

    /// The field names Vary lists, lowercased, without repeats, sorted.
    static func varyNames(_ vary: String?) -> [String] {
        Set((vary ?? "").lowercased().split(separator: ",").map { $0.trimmingSpaces }.filter { !$0.isEmpty }).sorted()
    }
}

private extension Substring {
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}

private extension String {
    func trimmingCharacters(quotes: Bool) -> String {
        quotes && count >= 2 && hasPrefix("\"") && hasSuffix("\"") ? String(dropFirst().dropLast()) : self
    }
}
