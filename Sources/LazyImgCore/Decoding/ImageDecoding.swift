/// The box an image is decoded into. With `FitMode.fit` the image is downsampled to fit
/// inside, keeping its aspect ratio; with `.fill` it covers the box and is cropped to it.
/// Never upscaled. A zero side means "no limit on that side".
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

/// Turns encoded bytes into a `DecodedImage` sized, oriented and laid out as asked.
///
/// One instance is used by one thread at a time (each decode thread makes its own,
/// so it may keep a TurboJPEG handle); it is never shared.
public protocol ImageDecoding {
    /// Throws `.unsupported` for bytes that are no format this build decodes, `.decode`
    /// for corrupt or truncated data, `.tooLarge` past `limits`, `.noMemory`.
    func decode(_ data: [UInt8], options: DecodeOptions, limits: DecodeLimits) throws(LoaderError) -> DecodedImage
}

extension ImageDecoding {
    /// Fits into `target` as straight RGBA: the decode the loader asked for before fit
    /// modes and pixel formats existed.
    public func decode(_ data: [UInt8], target: TargetSize, limits: DecodeLimits) throws(LoaderError) -> DecodedImage {
        try decode(data, options: DecodeOptions(target: target), limits: limits)
    }
}
