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
}
