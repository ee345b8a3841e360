/// The host's calls on the disk cache (`SchedulerLoop+Disk` reads and writes it).
extension ImageLoader {
    /// Empties the disk cache, and the responses the session keeps for reuse. Blocks
    /// for the file deletions.
    public func clearDiskCache() throws(LoaderError) {
        guard !isShutDown else { throw .shutdown }
        transport.forgetRecentResponses(of: nil)
        diskCache?.removeAll()
    }

    /// Forgets `url`: its original and thumbnails on disk, its image in memory and a
    /// response the session keeps for reuse, so the next request downloads it.
    /// Blocks for the file deletions.
    public func removeFromDiskCache(url: ImageURL) throws(LoaderError) {
        let key = CacheKey(url: url, options: configuration.decodeOptions)
        try front.withLock { f throws(LoaderError) in
            guard !f.isShuttingDown else { throw .shutdown }
            f.cache.remove(key)
            f.dropRemovedAnimations()
        }
        transport.forgetRecentResponses(of: url)
        diskCache?.remove(group: url.bytes)
    }
}
