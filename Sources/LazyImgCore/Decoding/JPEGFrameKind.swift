/// What kind of JPEG a file is, read from its start-of-frame (SOFn) marker.
///
/// TurboJPEG 2.1 decodes only 8-bit DCT JPEG (baseline, extended, progressive, with
/// Huffman or arithmetic coding). It refuses lossless, hierarchical and 12-bit files
/// with the same error as a corrupt one, so the decoder reads the frame header first:
/// a refusal then says what the file is ("lossless JPEG") and TurboJPEG never sees it.
enum JPEGFrameKind: Equatable {
    /// 8-bit DCT: TurboJPEG decodes it.
    case decodable
    /// A frame TurboJPEG cannot decode; `name` is for the failure message.
    case unsupported(name: String)

    /// The kind of the first frame in `bytes`; nil when no SOF marker comes before the
    /// first scan (a damaged file: left to TurboJPEG to refuse as corrupt).
    init?(scanning bytes: UnsafeBufferPointer<UInt8>) {
        var markers = JPEGMarkers(bytes)
        while let segment = markers.next() {
            // A scan or the end before any frame header.
            if segment.marker == 0xDA || segment.marker == 0xD9 { return nil }
            if Self.isStartOfFrame(segment.marker) {
                guard let precision = segment.payload.first else { return nil }
                self = Self.kind(marker: segment.marker, precision: precision)
                return
            }
        }
        return nil
    }

    /// As above, for an array of bytes.
    init?(scanning bytes: [UInt8]) {
        guard let kind = bytes.withUnsafeBufferPointer({ JPEGFrameKind(scanning: $0) }) else { return nil }
        self = kind
    }

    /// SOF0...SOF15 except DHT (C4), JPG (C8) and DAC (CC), which share the range.
    static func isStartOfFrame(_ marker: UInt8) -> Bool {
        (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
    }

    private static func kind(marker: UInt8, precision: UInt8) -> JPEGFrameKind {
        switch marker {
        case 0xC3, 0xCB:
            return .unsupported(name: "lossless JPEG")
        case 0xC5, 0xC6, 0xC7, 0xCD, 0xCE, 0xCF:
            return .unsupported(name: "hierarchical JPEG")
        default:
            return precision == 8 ? .decodable : .unsupported(name: "\(precision)-bit JPEG")
        }
    }
}
