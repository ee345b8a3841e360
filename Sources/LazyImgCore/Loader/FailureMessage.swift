/// The words a failed event carries beyond its error code: the HTTP status, or the
/// format the bytes turned out to be. Empty when the code says it all; the C layer
/// then gives the code's own description, so that text lives in one place.
enum FailureMessage {
    static func describe(_ error: LoaderError, bytes: [UInt8]?) -> String {
        switch error {
        case .http(let status):
            return "HTTP status \(status)"
        case .protocolViolation(let violation):
            return violation.description
        case .unsupported:
            guard let bytes else { return "" }
            guard let format = ImageFormat(sniffing: bytes) else {
                return "unsupported image format: not an image (\(bytes.count) bytes)"
            }
            if format == .jpeg, case .unsupported(let name) = JPEGFrameKind(scanning: bytes) {
                return "unsupported image format: \(name)"
            }
            return "unsupported image format: \(format.name)"
        default:
            return ""
        }
    }
}
