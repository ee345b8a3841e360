/// What a decode should produce: the box, how the image meets it, and the pixel layout.
/// Part of the memory cache's key, since each combination is a different image.
public struct DecodeOptions: Hashable, Sendable {
    public var target: TargetSize
    public var fit: FitMode
    public var format: PixelFormat

    public init(target: TargetSize = .original, fit: FitMode = .fit, format: PixelFormat = .rgba8) {
        self.target = target
        self.fit = fit
        self.format = format
    }
}
