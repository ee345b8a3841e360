/// Whether the start of a file is enough for a box: a progressive JPEG's DC scans
/// (`JPEGDCScans`) when the decoder would decode it at DCT scale 1/8, or an
/// interlaced PNG's first Adam7 pass (`PNGFirstPass`) when that pass, every 8th
/// pixel of every 8th row, covers the box. Other formats need the whole file.
public enum FirstPass {
    public enum Verdict: Equatable, Sendable {
        /// The first `end` bytes are enough: `decodable` makes the body that decodes
        /// for the box.
        case suffice(end: Int)
        /// The file's first pass goes on past the bytes present: about `upTo` bytes
        /// should hold it (a guess from what has come).
        case needMore(upTo: Int)
        /// The box needs the whole file.
        case needWholeFile
    }

    public static func examine(_ bytes: [UInt8], for options: DecodeOptions) -> Verdict {
        switch ImageFormat(sniffing: bytes) {
        case .jpeg: JPEGDCScans.examine(bytes, for: options)
        case .png: PNGFirstPass.examine(bytes, for: options)
        default: .needWholeFile
        }
    }

    /// The body a `.suffice(end:)` verdict answers with: a JPEG's start ended with an
    /// EOI (`JPEGDCScans.decodable`), a PNG's start as it is
    /// (`PNGInterlacedPrefix.decodeFirstPass` decodes it).
    public static func decodable(_ bytes: [UInt8], upTo end: Int) -> [UInt8] {
        switch ImageFormat(sniffing: bytes) {
        case .jpeg: JPEGDCScans.decodable(bytes, upTo: end)
        default: Array(bytes[..<min(end, bytes.count)])
        }
    }
}
