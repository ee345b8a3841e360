/// What identifies one decoded image: the URL and the box it was fitted to.
/// Two lists with different cell sizes therefore keep separate entries.
///
/// The hash is computed once, when the key is made (the loader makes one per row
/// when the list arrives), so a memory hit hashes one integer instead of the URL.
public struct CacheKey: Hashable, Sendable {
    public let url: String
    public let target: TargetSize
    private let precomputedHash: Int

    public init(url: String, target: TargetSize) {
        self.url = url
        self.target = target
        var hasher = Hasher()
        hasher.combine(url)
        hasher.combine(target)
        precomputedHash = hasher.finalize()
    }

    public static func == (a: CacheKey, b: CacheKey) -> Bool {
        a.precomputedHash == b.precomputedHash && a.target == b.target && a.url == b.url
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(precomputedHash)
    }
}
