/// The loader's default transport: file:// URLs to the `LocalFileLoader` (when the
/// configuration allows them), everything else to the network: libcurl of its own,
/// or a session's. libcurl itself is never given a file URL.
final class SchemeRoutingDataLoader: DataLoading {
    private let network: any DataLoading
    private let files: LocalFileLoader?

    /// nil when libcurl or a thread cannot be set up.
    convenience init?(configuration: LoaderConfiguration) {
        guard let network = CurlDataLoader(maxConcurrentTransfers: configuration.maxConcurrentDownloads,
                                           maxHostConnections: configuration.maxHostConnections) else {
            return nil
        }
        self.init(network: network, allowFileURLs: configuration.allowFileURLs)
    }

    /// Routes to `network` (taking it over: shut down with this one); nil when the
    /// file reader's thread cannot start.
    init?(network: any DataLoading, allowFileURLs: Bool) {
        if allowFileURLs {
            guard let files = LocalFileLoader() else {
                network.shutdown()
                return nil
            }
            self.files = files
        } else {
            files = nil
        }
        self.network = network
    }

    func start(_ id: TransferID, _ request: DataRequest,
               completion: @escaping @Sendable (TransferID, DataResponse) -> Void) {
        if let files = fileReader(for: request) {
            files.start(id, request, completion: completion)
        } else {
            network.start(id, request, completion: completion)
        }
    }

    /// File reads are never kept: a file is its own copy.
    func startOrReuse(_ id: TransferID, _ request: DataRequest,
                      completion: @escaping @Sendable (TransferID, DataResponse) -> Void) -> DataResponse? {
        if let files = fileReader(for: request) {
            files.start(id, request, completion: completion)
            return nil
        }
        return network.startOrReuse(id, request, completion: completion)
    }

    /// Where a file URL goes; nil sends the request to the network (a file URL
    /// without a file reader too: libcurl refuses it as a bad URL).
    private func fileReader(for request: DataRequest) -> LocalFileLoader? {
        URLCheck.isFileURL(request.url) ? files : nil
    }

    func forgetRecentResponses(of url: ImageURL?) {
        network.forgetRecentResponses(of: url)
    }

    /// File reads report no progress: they are never nearly done, only quick.
    func progress(of id: TransferID) -> TransferProgress? {
        network.progress(of: id)
    }

    /// IDs are unique per loader, so cancelling in both is harmless and needs no map.
    func cancel(_ id: TransferID) {
        network.cancel(id)
        files?.cancel(id)
    }

    /// A file is read again whole: only the network keeps bytes.
    func cancelKeepingBytes(_ id: TransferID) {
        network.cancelKeepingBytes(id)
        files?.cancel(id)
    }

    func shutdown() {
        network.shutdown()
        files?.shutdown()
    }
}
