import LazyImgCore

/// What the baselines load with: lazyimg's own transport (libcurl's multi interface
/// on one network thread, `CurlDataLoader`) and decode pool (`ImageDecoder` on as many
/// threads as lazyimg uses), decoding to the same box, so only the policy differs.
///
/// `fetch` may be called from any thread; decoded images (or failures) wait in
/// `arrivals` until the host thread takes them, as a main-queue hop would.
final class BaselineFetcher: Sendable {
    struct Arrival: Sendable {
        let row: Int
        let succeeded: Bool
    }

    private let urls: [String]
    private let options: DecodeOptions
    private let transport: CurlDataLoader
    private let workers: WorkerPool
    private let nextID = Locked<TransferID>(0)
    private let arrivals = Locked<[Arrival]>([])
    /// Where arrivals go instead of `arrivals`, when set.
    private let arrivalSink: (@Sendable (Arrival) -> Void)?

    /// `maxConnections`: libcurl's cap on connections (in total and to the one host).
    /// `arrivalSink`, when given, takes each arrival on the thread it happens on.
    init(urls: [String], box: Int, maxConnections: Int,
         arrivalSink: (@Sendable (Arrival) -> Void)? = nil) throws(BenchError) {
        guard let transport = CurlDataLoader(maxConcurrentTransfers: maxConnections) else {
            throw .setup("libcurl could not be initialised")
        }
        guard let pool = WorkerPool(threads: LoaderConfiguration.defaultDecodeThreads, makeDecoder: { ImageDecoder() })
        else {
            transport.shutdown()
            throw .setup("cannot start decode threads")
        }
        self.urls = urls
        self.arrivalSink = arrivalSink
        self.transport = transport
        workers = pool
        options = DecodeOptions(target: TargetSize(width: box, height: box))
    }

    /// Downloads and decodes `row`'s image. `downloadDidEnd` runs on the network thread
    /// when the transfer ends, before the decode.
    func fetch(row: Int, downloadDidEnd: (@Sendable () -> Void)? = nil) {
        let id = nextID.withLock { id in
            id += 1
            return id
        }
        let (options, pool, arrivals, sink) = (self.options, workers, self.arrivals, arrivalSink)
        @Sendable func arrive(_ arrival: Arrival) {
            if let sink { sink(arrival) } else { arrivals.withLock { $0.append(arrival) } }
        }
        transport.start(id, DataRequest(url: urls[row])) { _, response in
            downloadDidEnd?()
            guard case .success(let bytes) = response.result,
                  pool.submit(priority: 0, { decoder in
                      arrive(Arrival(row: row, succeeded: (try? decoder.decode(bytes, options: options,
                                                                               limits: DecodeLimits())) != nil))
                  })
            else {
                arrive(Arrival(row: row, succeeded: false))
                return
            }
        }
    }

    /// What finished since the last call, in order.
    func takeArrivals() -> [Arrival] {
        arrivals.withLock { arrivals in
            defer { arrivals.removeAll(keepingCapacity: true) }
            return arrivals
        }
    }

    /// Stops every transfer and decode and joins the threads.
    func shutdown() {
        transport.shutdown()
        workers.shutdown()
    }
}
