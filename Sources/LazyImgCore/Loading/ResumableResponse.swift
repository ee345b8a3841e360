import CCurl

/// What a response must say before the start of its body is worth keeping for a
/// later `Range` request (RFC 9110 §14 and §13.1.5): that it serves byte ranges,
/// how long the body is, and a validator If-Range may carry.
enum ResumableResponse {
    /// `Accept-Ranges` names the `bytes` unit. Without it a server may still serve
    /// ranges, but one that does not advertise them is not held memory for.
    static func acceptsByteRanges(_ value: String?) -> Bool {
        guard let value else { return false }
        // Tokens hold no blanks, so dropping them all leaves each token bare.
        return value.lowercased().split(separator: ",").contains { $0.filter { $0 != " " && $0 != "\t" } == "bytes" }
    }

    /// The validator for If-Range: the ETag when it is strong; with no ETag at all,
    /// the Last-Modified date when it is a strong validator, the response's Date at
    /// least a second later (§8.8.2.2). A weak ETag, or a date that may name two
    /// versions, is nil: If-Range may not carry it, and the body is not kept.
    static func ifRangeValidator(etag: String?, lastModified: String?, date: String?) -> String? {
        let validator: String
        if let etag {
            guard !etag.hasPrefix("W/"), etag.hasPrefix("\""), etag.count >= 2, etag.hasSuffix("\"") else { return nil }
            validator = etag
        } else {
            guard let lastModified, let date else { return nil }
            let modified = curl_getdate(lastModified, nil), served = curl_getdate(date, nil)
            guard modified >= 0, served >= 0, served - modified >= 1 else { return nil }
            validator = lastModified
        }
        return DataRequest.isSingleHeaderLine(validator) ? validator : nil
    }
}
