/// The first bytes of a response body whose download stopped before its end: its
/// row left the window, or the network cut it off. Kept so that the next download
/// of the same request asks for the rest only, `Range: bytes=<count>-` with
/// `If-Range: <validator>`, and appends what a matching 206 brings.
struct PartialBody {
    /// Which requests may continue it: the URL asked for and the credentials it
    /// carried, as the disk cache files its entries (`DataRequest.credentialScope`),
    /// so a request with other credentials, or none, never gets bytes fetched with
    /// these.
    struct Key: Hashable {
        let url: ImageURL
        let credentialScope: [UInt8]

        /// The key of a transfer that began as `request`, before any redirect.
        init(_ request: DataRequest) {
            url = request.url
            credentialScope = request.credentialScope
        }
    }

    let bytes: [UInt8]
    /// The URL that served them, after redirects: only a hop to it asks for the rest.
    let servedBy: ImageURL
    /// What If-Range carries (`ResumableResponse.ifRangeValidator`).
    let validator: String
    /// The whole body's length, as the response announced it; more than `bytes`.
    let length: Int

    /// The lines that ask for the rest, or for the bytes up to `end` (exclusive)
    /// when given. A validator is the server's: sent as it came, so it must be one
    /// clean header line (`ResumableResponse` checks).
    func rangeHeaders(upTo end: Int?) -> [String] {
        ["Range: bytes=\(bytes.count)-\(end.map { String($0 - 1) } ?? "")", "If-Range: \(validator)"]
    }

    /// The bytes to pay for: their storage, after trimming what they did not use.
    var cost: Int { bytes.capacity }

    /// `bytes` in storage of their own size: a body grown for its announced length
    /// would otherwise keep the whole of it reserved.
    init(bytes: [UInt8], servedBy: ImageURL, validator: String, length: Int) {
        self.bytes = bytes.capacity > bytes.count + bytes.count / 8 ? bytes.withUnsafeBufferPointer { Array($0) } : bytes
        self.servedBy = servedBy
        self.validator = validator
        self.length = length
    }
}
