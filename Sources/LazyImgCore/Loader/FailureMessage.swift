/// The words a failed event carries: what the error code alone cannot say, such as
/// the HTTP status or the format the bytes turned out to be.
enum FailureMessage {
    static func describe(_ error: LoaderError, bytes: [UInt8]?) -> String {
        switch error {
        case .http(let status):
            return "HTTP status \(status)"
        case .unsupported:
            guard let bytes else { return "unsupported image format" }
            guard let format = ImageFormat(sniffing: bytes) else {
                return "unsupported image format: not an image (\(bytes.count) bytes)"
            }
            return "unsupported image format: \(format.name)"
        case .decode: return "corrupt or truncated image data"
        case .tooLarge: return "image or response larger than the configured limits"
        case .network: return "network error or timeout"
        case .badURL: return "URL refused (only http, https and file load)"
        case .io: return "file could not be read"
        case .noMemory: return "out of memory"
        case .cancelled: return "cancelled"
        case .invalidArgument: return "invalid argument"
        case .outOfRange: return "row out of range"
        case .misuse: return "library misuse"
        case .shutdown: return "loader is shutting down"
        case .noImage: return "row has no image URL"
        }
    }
}
