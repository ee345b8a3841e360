import LazyImgCore
import Synchronization

/// A loader whose one transport answers every request with the bytes under test, as
/// an HTTP 200 body: the path from a finished download to the host's event.
final class ResponseHarness: DataLoading, @unchecked Sendable {
    static let pixels = ResponseHarness(output: .pixels)
    static let encoded = ResponseHarness(output: .encoded)

    /// The transfer the loader started, guarded by `started`: the scheduler starts
    /// it on its own thread a moment after the request.
    private let started = Condition()
    private var pending: (id: TransferID, completion: @Sendable (TransferID, DataResponse) -> Void)?
    private let events = Mutex<Int>(0)
    private var loader: ImageLoader!
    private var requests = 0

    private init(output: ImageOutput) {
        var config = LoaderConfiguration()
        config.output = output
        config.decodeThreads = 1
        config.memoryCacheBytes = 1 << 20
        config.maxPixels = FuzzTarget.limits.maxPixels
        config.target = TargetSize(width: 64, height: 64)
        // The two harnesses live as long as the process.
        loader = try? ImageLoader(configuration: config, transport: self) { [unowned self] _ in
            events.withLock { $0 += 1 }
        }
    }

    /// Requests a fresh URL, answers it with `bytes`, and waits for its one event.
    func deliver(_ bytes: [UInt8]) {
        guard let loader else { fatalError("no loader") }
        requests += 1
        let before = events.withLock { $0 }
        guard (try? loader.setItems(["http://fuzz.test/\(requests)"])) != nil,
              case .pending = try? loader.request(row: 0)
        else { fatalError("the loader did not take the request") }
        // A loader that never starts it hangs here, which libFuzzer's -timeout reports.
        let transfer = started.locked {
            while pending == nil { started.wait() }
            defer { pending = nil }
            return pending!
        }
        transfer.completion(transfer.id, DataResponse(result: .success(bytes), httpStatus: 200,
                                                      bytesReceived: bytes.count))
        while events.withLock({ $0 }) == before {
            _ = try? loader.waitForEvents(milliseconds: -1)
            _ = loader.dispatch(max: 0)
        }
    }

    func start(_ id: TransferID, _ request: DataRequest,
               completion: @escaping @Sendable (TransferID, DataResponse) -> Void) {
        started.locked {
            pending = (id, completion)
            started.broadcast()
        }
    }

    func cancel(_ id: TransferID) {}
    func shutdown() {}
}
