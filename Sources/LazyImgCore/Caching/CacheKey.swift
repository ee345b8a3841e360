/// What identifies one decoded image: the URL and how it was decoded (box, fit mode,
/// pixel format). Two lists with different cell sizes or layouts therefore keep
/// separate entries.
///
/// The hash is computed once, when the key is made (the loader makes one per row
/// when the list arrives), so a memory hit hashes one integer instead of the URL.
/// URLs compare as bytes (`ImageURL`), never as Unicode text.
public struct CacheKey: Hashable, Sendable {
    public let url: ImageURL
    public let options: DecodeOptions
    /// What `URLCheck` says of the URL, decided once when the key is made (once per
    /// row when the list arrives) instead of on every request that misses.
    private let isLoadableWithFiles: Bool
    private let isFileURL: Bool
    private let precomputedHash: Int

    public init(url: ImageURL, options: DecodeOptions) {
        self.url = url
        self.options = options
        isLoadableWithFiles = URLCheck.isLoadable(url, allowingFiles: true)
        isFileURL = URLCheck.isFileURL(url)
        var hasher = Hasher()
        hasher.combine(url)
        hasher.combine(options)
        precomputedHash = hasher.finalize()
    }

    /// A key for an image fitted into `target` as straight RGBA.
    public init(url: String, target: TargetSize) {
        self.init(url: ImageURL(url), options: DecodeOptions(target: target))
    }

    /// `URLCheck.isLoadable(url, allowingFiles:)`, without looking at the URL again.
    public func isLoadable(allowingFiles: Bool) -> Bool {
        isLoadableWithFiles && (allowingFiles || !isFileURL)
    }

    /// The precomputed hash itself, unseeded, for `CachePresence`.
    var presenceHash: Int { precomputedHash }

    /// The box the image was decoded into.
    public var target: TargetSize { options.target }

    public static func == (a: CacheKey, b: CacheKey) -> Bool {
        a.precomputedHash == b.precomputedHash && a.options == b.options && a.url == b.url
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(precomputedHash)
    }

    /// What Dictionary and Set ask for: the precomputed hash, already a seeded
    /// SipHash of the URL, mixed with the table's seed, instead of hashing it again
    /// (which was a quarter of a memory hit).
    public func _rawHashValue(seed: Int) -> Int {
        precomputedHash ^ seed
    }
}
