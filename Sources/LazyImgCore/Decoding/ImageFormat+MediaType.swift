extension ImageFormat {
    /// The format's media type, as an HTTP Accept header names it.
    public var mediaType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .gif: "image/gif"
        case .webp: "image/webp"
        case .bmp: "image/bmp"
        case .tiff: "image/tiff"
        // HEVC-coded HEIF, which is what HEIFDecoder reads; what Safari asks for.
        case .heif: "image/heic"
        case .avif: "image/avif"
        }
    }

    /// What image requests accept: the formats this build decodes, the compact ones
    /// first as browsers list them, then anything else at a lower preference. A server
    /// that negotiates (a CDN choosing AVIF or WebP by Accept) sends one of these; one
    /// that has only another type still may, and the failure names it.
    public static let acceptHeader: String = {
        let decodable = [ImageFormat.avif, .heif, .webp, .png, .jpeg, .gif].filter(\.isDecodable)
        return (decodable.map(\.mediaType) + ["*/*;q=0.5"]).joined(separator: ",")
    }()
}
