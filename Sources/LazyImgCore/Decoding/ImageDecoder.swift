/// The default `ImageDecoding`: recognises the format from the bytes and hands them
/// to the decoder for it.
///
/// Not Sendable: it owns a TurboJPEG handle, so each decode thread makes its own.
public final class ImageDecoder: ImageDecoding {
    private let jpeg = JPEGDecoder()
    private let png = PNGDecoder()

    public init() {}

    public func decode(_ data: [UInt8], target: TargetSize, limits: DecodeLimits) throws(LoaderError) -> DecodedImage {
        switch ImageFormat(sniffing: data) {
        case .jpeg:
            return try jpeg.decode(data, target: target, limits: limits)
        case .png:
            return try png.decode(data, target: target, limits: limits)
        default:
            throw .unsupported
        }
    }
}
