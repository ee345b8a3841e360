/// Why a load failed, or why a call was refused. The ABI layer maps each case to a
/// `lazyimg_status`; the core knows nothing of the numbers.
public enum LoaderError: Error, Sendable, Equatable {
    case invalidArgument
    case outOfRange
    case badURL
    case network
    case http(status: Int)
    case decode
    case unsupported
    case tooLarge
    case io
    case cancelled
    case noMemory
    case misuse
    case shutdown
    case noImage
    /// The TLS handshake failed: an untrusted or mismatched certificate, or no
    /// common protocol. Its own case, since the cure (a CA file, a fixed server) is
    /// not the cure for a network that is down.
    case tls
    /// The server's reply broke HTTP, or was no answer to what was asked: the
    /// server's fault, not the network's, and not worth another try.
    case protocolViolation(ProtocolViolation)
}

/// How a reply broke HTTP; the words go in the failed event's message.
public enum ProtocolViolation: Sendable, Equatable, CustomStringConvertible {
    /// A header line longer than libcurl takes, or all headers together over
    /// `CurlTransfer.maxHeaderBytes`.
    case headersTooLarge
    /// No HTTP/1.x status line: an HTTP/0.9 reply, garbage, or an informational
    /// status (1xx) with nothing after it.
    case notHTTP
    /// A status outside 100-599.
    case badStatus(Int)
    /// More than `CurlTransfer.maxRedirects` hops (a loop, or a chain too long).
    case tooManyRedirects
    /// A 3xx this loader cannot follow: no Location, or 300 Multiple Choices.
    case unfollowableRedirect(Int)
    /// 204 and 205 carry no body, 206 answers a Range the request never sent, and
    /// 304 a validator it never sent.
    case noBodyForThisRequest(Int)

    public var description: String {
        switch self {
        case .headersTooLarge: "protocol error: response headers too large"
        case .notHTTP: "protocol error: not an HTTP/1.x reply (HTTP/0.9, a malformed or 1xx status line)"
        case .badStatus(let status): "protocol error: status \(status) is outside 100-599"
        case .tooManyRedirects: "protocol error: more than 5 redirects (a loop?)"
        case .unfollowableRedirect(let status): "protocol error: a \(status) redirect without a Location to follow"
        case .noBodyForThisRequest(let status): "protocol error: status \(status) has no image for this request"
        }
    }
}
