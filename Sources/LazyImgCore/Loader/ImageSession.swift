/// What several loaders in one process share: one network stack (libcurl's
/// connections, capped together), one table of downloads so a URL is fetched once
/// whichever loaders want it, one disk cache, and one budget for the decoded images
/// the loaders keep in memory.
///
/// Each loader keeps a reference, so the session lives until its last loader is
/// gone, whenever the host lets go of it.
public final class ImageSession: Sendable {
    let transfers: TransferCoalescer
    public let diskCache: DiskCache?
    /// nil: no shared limit, each loader only its own.
    public let memoryBudget: SessionMemoryBudget?

    /// - Parameters:
    ///   - maxConcurrentDownloads: connections for all loaders together.
    ///   - memoryCacheBytes: decoded images in memory for all loaders together;
    ///     0 = no shared limit.
    ///   - transport: fetches bytes; nil = libcurl on a network thread of its own.
    /// Throws `.io` when the disk cache directory cannot be used, `.network` when
    /// libcurl cannot start.
    public init(diskCacheDirectory: String?, diskCacheBytes: Int, maxConcurrentDownloads: Int,
                memoryCacheBytes: Int = LoaderConfiguration().memoryCacheBytes,
                transport: (any DataLoading)? = nil) throws(LoaderError) {
        memoryBudget = memoryCacheBytes > 0 ? SessionMemoryBudget(limit: memoryCacheBytes) : nil
        diskCache = try diskCacheDirectory.map { directory throws(LoaderError) in
            try DiskCache(directory: directory, limit: diskCacheBytes)
        }
        guard let network = transport ?? CurlDataLoader(maxConcurrentTransfers: maxConcurrentDownloads) else {
            throw .network
        }
        transfers = TransferCoalescer(network: network)
    }
}
