/// The container an encoded image claims to be, judged from its leading bytes only.
///
/// Servers often send the wrong Content-Type and URLs rarely end in the right
/// extension, so the bytes are the only evidence worth trusting. Formats this build
/// cannot decode are still named, so a failure can say "GIF" rather than "garbage".
public enum ImageFormat: Sendable, Equatable {
    case jpeg
    case png
    case gif
    case webp
    case bmp
    case tiff
    case heif
    case avif

    /// Whether this build has a decoder for the format: AVIF and HEIF only when it was
    /// built with libavif and libheif (Package.swift).
    public var isDecodable: Bool {
        switch self {
        case .jpeg, .png, .gif, .webp: true
        case .avif: Self.buildHasAVIF
        case .heif: Self.buildHasHEIF
        case .bmp, .tiff: false
        }
    }

    #if LAZYIMG_AVIF
    static let buildHasAVIF = true
    #else
    static let buildHasAVIF = false
    #endif
    #if LAZYIMG_HEIF
    static let buildHasHEIF = true
    #else
    static let buildHasHEIF = false
    #endif

    /// The format's usual name, for messages such as "unsupported image format: HEIF".
    public var name: String {
        switch self {
        case .jpeg: "JPEG"
        case .png: "PNG"
        case .gif: "GIF"
        case .webp: "WebP"
        case .bmp: "BMP"
        case .tiff: "TIFF"
        case .heif: "HEIF"
        case .avif: "AVIF"
        }
    }

    /// Recognises a format from the first bytes of a file; nil when none matches.
    public init?(sniffing bytes: [UInt8]) {
        func starts(with signature: [UInt8], at offset: Int = 0) -> Bool {
            guard bytes.count >= offset + signature.count else { return false }
            for (i, byte) in signature.enumerated() where bytes[offset + i] != byte {
                return false
            }
            return true
        }

        if starts(with: [0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else if starts(with: Array("GIF87a".utf8)) || starts(with: Array("GIF89a".utf8)) {
            self = .gif
        } else if starts(with: Array("RIFF".utf8)) && starts(with: Array("WEBP".utf8), at: 8) {
            self = .webp
        } else if starts(with: Array("BM".utf8)) {
            self = .bmp
        } else if starts(with: [0x49, 0x49, 0x2A, 0x00]) || starts(with: [0x4D, 0x4D, 0x00, 0x2A]) {
            self = .tiff
        } else if starts(with: Array("ftyp".utf8), at: 4), bytes.count >= 12 {
            // ISO-BMFF: the major brand after "ftyp" separates AVIF from the HEIF family.
            // Other ftyp brands (mp4, mov, ...) are video, not images.
            switch Self.brand(bytes, at: 8) {
            case "avif", "avis":
                self = .avif
            case "mif1", "msf1":
                // The generic image brands: the compatible brands say which codec, and
                // libavif reads a file that lists "avif" or "avis" among them.
                self = Self.compatibleBrands(bytes).contains { $0 == "avif" || $0 == "avis" } ? .avif : .heif
            case "heic", "heix", "hevc", "hevx", "heim", "heis":
                self = .heif
            default:
                return nil
            }
        } else {
            return nil
        }
    }

    private static func brand(_ bytes: [UInt8], at offset: Int) -> String {
        String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
    }

    /// The brands an ftyp box lists after its major brand and version, as far as the
    /// box and the bytes reach.
    private static func compatibleBrands(_ bytes: [UInt8]) -> [String] {
        let boxSize = bytes[0..<4].reduce(0) { $0 << 8 | Int($1) }
        let end = min(boxSize, bytes.count)
        return stride(from: 16, to: end - 3, by: 4).map { brand(bytes, at: $0) }
    }
}
