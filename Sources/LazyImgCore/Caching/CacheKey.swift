/// What identifies one decoded image: the URL and the box it was fitted to.
/// Two lists with different cell sizes therefore keep separate entries.
public struct CacheKey: Hashable, Sendable {
    public var url: String
    public var target: TargetSize

    public init(url: String, target: TargetSize) {
        self.url = url
        self.target = target
    }
}
