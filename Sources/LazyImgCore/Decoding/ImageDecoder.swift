/// The default `ImageDecoding`: recognises the format from the bytes and hands them
/// to the decoder for it.
///
/// `.unsupported` covers both unknown bytes and formats this build cannot decode (AVIF
/// and HEIF in a build without libavif or libheif); a caller that wants to say which
/// can ask `ImageFormat(sniffing:)?.name`.
///
/// Not Sendable: it owns a TurboJPEG handle, so each decode thread makes its own.
public final class ImageDecoder: ImageDecoding {
    private let jpeg = JPEGDecoder()
    private let png = PNGDecoder()
    private let webp = WebPDecoder()
    private let gif = GIFDecoder()
    /// The decoder the last file went to.
    private var last: (any ImageDecoding)?

    public init() {}

    public var lastFailureReason: String { last?.lastFailureReason ?? "" }

    public func decode(_ data: [UInt8], options: DecodeOptions, limits: DecodeLimits) throws(LoaderError) -> DecodedImage {
        let decoder: any ImageDecoding
        switch ImageFormat(sniffing: data) {
        case .jpeg: decoder = jpeg
        case .png: decoder = png
        case .webp: decoder = webp
        case .gif: decoder = gif
        #if LAZYIMG_AVIF
        case .avif: decoder = AVIFDecoder()
        #endif
        #if LAZYIMG_HEIF
        case .heif: decoder = HEIFDecoder()
        #endif
        default:
            last = nil
            throw .unsupported
        }
        last = decoder
        return try decoder.decode(data, options: options, limits: limits)
    }
}
