/// What identifies one decoded image: the URL and how it was decoded (box, fit mode,
/// pixel format). Two lists with different cell sizes or layouts therefore keep
/// separate entries.
///
/// The hash is computed once, when the key is made (the loader makes one per row
/// when the list arrives), so a memory hit hashes one integer instead of the URL.
public struct CacheKey: Hashable, Sendable {
    public let url: String
    public let options: DecodeOptions
    private let precomputedHash: Int

    public init(url: String, options: DecodeOptions) {
        self.url = url
        self.options = options
        var hasher = Hasher()
        hasher.combine(url)
        hasher.combine(options)
        precomputedHash = hasher.finalize()
    }

    /// A key for an image fitted into `target` as straight RGBA.
    public init(url: String, target: TargetSize) {
        self.init(url: url, options: DecodeOptions(target: target))
    }

    /// The box the image was decoded into.
    public var target: TargetSize { options.target }

    /// URLs match byte for byte: String's `==` would also match canonically
    /// equivalent Unicode ("é" and "e" + U+0301), which are different URLs. The
    /// String hash stays valid: byte-equal strings are canonically equal too.
    public static func == (a: CacheKey, b: CacheKey) -> Bool {
        a.precomputedHash == b.precomputedHash && a.options == b.options && a.url.utf8.elementsEqual(b.url.utf8)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(precomputedHash)
    }
}
