import Glibc

/// A row's placeholder hash, checked when the host gave it.
public enum Placeholder: Sendable, Equatable {
    case blurHash(BlurHash)
    case thumbHash(ThumbHash)

    public enum Kind: Sendable {
        /// BlurHash text.
        case blurHash
        /// ThumbHash bytes as base64 text, as feeds carry them.
        case thumbHash
    }

    /// Parses a hash given as a C string. At most one byte past the longest hash of its
    /// kind is read, so a hostile string costs no more than a hash.
    public init(_ kind: Kind, cString: UnsafePointer<CChar>) throws(PlaceholderError) {
        let limit = kind == .blurHash ? BlurHash.maximumLength : ThumbHash.maximumBase64Length
        let text = UnsafeRawBufferPointer(start: cString, count: strnlen(cString, limit + 1))
        switch kind {
        case .blurHash: self = .blurHash(try BlurHash(text))
        case .thumbHash: self = .thumbHash(try ThumbHash(base64: text))
        }
    }

    /// The placeholder for a loader's `options`: drawn at its box (`PlaceholderGeometry`),
    /// in its pixel format.
    public func render(for options: DecodeOptions) -> DecodedImage? {
        switch self {
        case .blurHash(let hash):
            let size = PlaceholderGeometry.blurHashSize(box: options.target)
            return hash.render(width: size.width, height: size.height, format: options.format)
        case .thumbHash(let hash):
            let geometry = PlaceholderGeometry(thumbHashAspect: hash.aspectRatio, options: options)
            return hash.render(gridWidth: geometry.gridWidth, gridHeight: geometry.gridHeight,
                               visible: geometry.visible, format: options.format)
        }
    }
}
