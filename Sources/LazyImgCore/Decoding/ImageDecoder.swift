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

    public init() {}

    public func decode(_ data: [UInt8], options: DecodeOptions, limits: DecodeLimits) throws(LoaderError) -> DecodedImage {
        switch ImageFormat(sniffing: data) {
        case .jpeg:
            return try jpeg.decode(data, options: options, limits: limits)
        case .png:
            return try png.decode(data, options: options, limits: limits)
        case .webp:
            return try webp.decode(data, options: options, limits: limits)
        case .gif:
            return try gif.decode(data, options: options, limits: limits)
        #if LAZYIMG_AVIF
        case .avif:
            return try AVIFDecoder().decode(data, options: options, limits: limits)
        #endif
        #if LAZYIMG_HEIF
        case .heif:
            return try HEIFDecoder().decode(data, options: options, limits: limits)
        #endif
        default:
            throw .unsupported
        }
    }
}
