/// What identifies one decoded image: the URL and how it was decoded (box, fit mode,
/// pixel format). Two lists with different cell sizes or layouts therefore keep
/// separate entries.
public struct CacheKey: Hashable, Sendable {
    public var url: String
    public var options: DecodeOptions

    /// The box the image was decoded into.
    public var target: TargetSize {
        get { options.target }
        set { options.target = newValue }
    }

    public init(url: String, options: DecodeOptions) {
        self.url = url
        self.options = options
    }

    /// A key for an image fitted into `target` as straight RGBA.
    public init(url: String, target: TargetSize) {
        self.init(url: url, options: DecodeOptions(target: target))
    }
}
