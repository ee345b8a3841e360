// TEMPORARY until the network stage lands.
public final class CurlDataLoader: DataLoading {
    public init?(maxConcurrentTransfers: Int) {}
    public func start(_ id: TransferID, _ request: DataRequest, completion: @escaping @Sendable (TransferID, DataResponse) -> Void) {}
    public func cancel(_ id: TransferID) {}
    public func shutdown() {}
}
