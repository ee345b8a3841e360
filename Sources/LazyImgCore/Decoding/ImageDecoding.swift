/// The box an image is decoded into: it is downsampled to fit inside, keeping its
/// aspect ratio, and never upscaled. A zero side means "no limit on that side".
public struct TargetSize: Hashable, Sendable {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// Decode at the size in the file.
    public static let original = TargetSize(width: 0, height: 0)
}

/// What one decode may cost. Checked against the file's header before any pixel
/// buffer exists.
public struct DecodeLimits: Sendable {
    public var maxPixels: Int

    public init(maxPixels: Int = 50_000_000) {
        self.maxPixels = maxPixels
    }
}

/// Turns encoded bytes into a `DecodedImage` fitted to a box.
///
/// One instance is used by one thread at a time (each decode thread makes its own,
/// so it may keep a TurboJPEG handle); it is never shared.
public protocol ImageDecoding {
    /// Throws `.unsupported` for bytes that are no known format, `.decode` for
    /// corrupt or truncated data, `.tooLarge` past `limits`, `.noMemory`.
    func decode(_ data: [UInt8], target: TargetSize, limits: DecodeLimits) throws(LoaderError) -> DecodedImage
}
