/// What several loaders in one process share: one network stack (libcurl's
/// connections, capped together), one table of downloads so a URL is fetched once
/// whichever loaders want it, and one disk cache.
///
/// Each loader keeps a reference, so the session lives until its last loader is
/// gone, whenever the host lets go of it.
public final class ImageSession: Sendable {
    let transfers: TransferCoalescer
    public let diskCache: DiskCache?

    /// - Parameters:
    ///   - maxConcurrentDownloads: connections for all loaders together.
    ///   - transport: fetches bytes; nil = libcurl on a network thread of its own.
    /// Throws `.io` when the disk cache directory cannot be used, `.network` when
    /// libcurl cannot start.
    public init(diskCacheDirectory: String?, diskCacheBytes: Int, maxConcurrentDownloads: Int,
                transport: (any DataLoading)? = nil) throws(LoaderError) {
        diskCache = try diskCacheDirectory.map { directory throws(LoaderError) in
            try DiskCache(directory: directory, limit: diskCacheBytes)
        }
        guard let network = transport ?? CurlDataLoader(maxConcurrentTransfers: maxConcurrentDownloads) else {
            throw .network
        }
        transfers = TransferCoalescer(network: network)
    }
}
