/// What the fuzzer (Tests/Fuzz) reaches inside the disk cache. It is built
/// without testability, so these are `@_spi(Fuzzing)`: not part of what hosts use.
extension DiskCache {
    /// `file` with its entry checksum made to match (when it is a header long), so
    /// that a fuzzer gets past the check to the fields it guards: random bytes would
    /// almost never match it.
    @_spi(Fuzzing)
    public static func withMatchingChecksum(_ file: [UInt8]) -> [UInt8] {
        file.count >= DiskCacheEntry.headerSize ? DiskCacheEntry.withChecksum(file) : file
    }

    /// An entry file parsed and verified as `read` does; nil when refused.
    @_spi(Fuzzing)
    public static func parseEntry(_ file: [UInt8]) -> (key: [UInt8], metadata: HTTPCacheMetadata, body: [UInt8])? {
        DiskCacheEntry(decoding: file).map { ($0.key, $0.metadata, Array($0.body)) }
    }

    /// A thumbnail body decoded as a disk read decodes it.
    @_spi(Fuzzing)
    public static func decodeThumbnail(_ body: [UInt8]) -> DecodedImage? {
        DiskCacheThumbnail.decode(body)
    }

    /// Where `key`'s entry file is.
    @_spi(Fuzzing)
    public func path(of key: Key) -> String {
        let name = Self.fileName(key)
        return "\(directory)/\(name.prefix(2))/\(name)"
    }
}
