// TEMPORARY until the decode stage lands.
import Dispatch
public final class DecodePool: Sendable {
    let queue = DispatchQueue(label: "decode")
    let make: @Sendable () -> any ImageDecoding
    public init?(threads: Int, makeDecoder: @escaping @Sendable () -> any ImageDecoding) { make = makeDecoder }
    public func submit(priority: Int, _ job: @escaping @Sendable (any ImageDecoding) -> Void) { queue.async { [make] in job(make()) } }
    public func shutdown() { queue.sync {} }
}
public final class ImageDecoder: ImageDecoding {
    public init() {}
    public func decode(_ data: [UInt8], target: TargetSize, limits: DecodeLimits) throws(LoaderError) -> DecodedImage { throw .unsupported }
}
public final class CurlDataLoader: DataLoading {
    public init?(maxConcurrentTransfers: Int) {}
    public func start(_ id: TransferID, _ request: DataRequest, completion: @escaping @Sendable (TransferID, DataResponse) -> Void) {}
    public func cancel(_ id: TransferID) {}
    public func shutdown() {}
}
