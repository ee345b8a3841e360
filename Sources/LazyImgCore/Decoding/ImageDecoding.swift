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
    /// Width times height, of the file (a GIF or animated WebP's canvas and its first
    /// frame each count).
    public var maxPixels: Int
    /// The memory a decode may hold besides the image it returns: what the codec keeps
    /// of the whole file while it decodes (a progressive JPEG's coefficients, a lossless
    /// WebP's pixels, libwebp's alpha plane), full-size buffers where the rows cannot
    /// stream (interlaced PNG, WebP with alpha, a GIF or WebP frame drawn on its
    /// canvas), and the rows that stream. A file whose header says it needs more is
    /// refused with `.tooLarge` before any of it is allocated: `maxPixels` alone is no
    /// memory bound, since the cost per pixel differs by format and kind.
    public var maxWorkingBytes: Int

    public init(maxPixels: Int = 50_000_000, maxWorkingBytes: Int = DecodeLimits.defaultMaxWorkingBytes) {
        self.maxPixels = maxPixels
        self.maxWorkingBytes = maxWorkingBytes
    }

    /// 64 MiB: a 16 Mpx full-size RGBA buffer, or the coefficients of a 22 Mpx 4:2:0
    /// (11 Mpx 4:4:4) progressive JPEG.
    public static let defaultMaxWorkingBytes = 64 << 20
}

/// Turns encoded bytes into a `DecodedImage` sized, oriented and laid out as asked.
///
/// One instance is used by one thread at a time (each decode thread makes its own,
/// so it may keep a TurboJPEG handle); it is never shared.
public protocol ImageDecoding {
    /// Throws `.unsupported` for bytes that are no format this build decodes, `.decode`
    /// for corrupt or truncated data, `.tooLarge` past `limits`, `.noMemory`.
    func decode(_ data: [UInt8], options: DecodeOptions, limits: DecodeLimits) throws(LoaderError) -> DecodedImage

    /// Why the last decode that threw refused its file, in words for the failure
    /// event ("progressive JPEG: 294 MB of coefficients, over the 64 MiB a decode may
    /// hold"); "" when the error says it all.
    var lastFailureReason: String { get }
}

extension ImageDecoding {
    public var lastFailureReason: String { "" }

    /// Fits into `target` as straight RGBA: the decode the loader asked for before fit
    /// modes and pixel formats existed.
    public func decode(_ data: [UInt8], target: TargetSize, limits: DecodeLimits) throws(LoaderError) -> DecodedImage {
        try decode(data, options: DecodeOptions(target: target), limits: limits)
    }
}
