import CCurl

/// The default `DataLoading`: libcurl's multi interface on one network thread.
///
/// That thread owns the multi handle and every easy handle; `start` and `cancel` only
/// queue a command and wake it. Keep-alive connections live in the multi handle's
/// cache, so consecutive images from one host share a connection; host names are
/// looked up off that thread (`HostResolver`) and their answers kept a minute.
/// Completions run on the network thread with no lock held; they may call `start`
/// and `cancel`, and should hand heavy work (decoding) to another thread.
public final class CurlDataLoader: DataLoading {
    private let commands: CurlCommandQueue
    private let thread: NativeThread
    /// Serialises joins: NativeThread.join must run once, and every `shutdown` caller
    /// must wait until the thread is gone before it may return.
    private let joinGate = Locked(())
    /// Progress of the transfers running on the network thread, which adds and
    /// removes them; `cancel` also removes its transfer's at once.
    private let counters: Locked<[TransferID: TransferCounters]>

    /// The partial bodies a network keeps for resuming, by default: a screenful of
    /// cancelled thumbnails several times over, or a few cancelled large images.
    public static let keptPartialBytes = 8 << 20

    /// Host names looked up at once, off the network thread (`HostResolver`): the most
    /// lookup threads that names which never resolve can hold.
    public static let maxLookups = 8

    /// `maxConcurrentTransfers` caps libcurl's connections in total, `maxHostConnections`
    /// those to any one host (nil = the total). Transfers past a cap wait inside libcurl
    /// for a connection rather than being refused; the caller limits its own
    /// concurrency as well. Over HTTP/2 (https servers that offer it) transfers to one
    /// host share a connection as streams, so the per-host cap does not hold them back.
    /// `keptPartialBytes` bounds the partial bodies kept for resuming
    /// (`cancelKeepingBytes`, and transfers the network cut off).
    /// Returns nil when libcurl cannot be initialised or the thread cannot be made.
    public init?(maxConcurrentTransfers: Int = 6, maxHostConnections: Int? = nil,
                 keptPartialBytes: Int = CurlDataLoader.keptPartialBytes) {
        guard CurlGlobal.isInitialized, let multi = curl_multi_init() else { return nil }
        let connections = max(1, maxConcurrentTransfers)
        _ = lazyimg_curl_multi_set_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, connections)
        _ = lazyimg_curl_multi_set_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS,
                                        min(connections, max(1, maxHostConnections ?? connections)))
        // Keep as many idle connections as may be busy at once, for reuse.
        _ = lazyimg_curl_multi_set_long(multi, CURLMOPT_MAXCONNECTS, connections)
        _ = lazyimg_curl_multi_set_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))

        let commands = CurlCommandQueue(multi: multi)
        let counters = Locked<[TransferID: TransferCounters]>([:])
        let loop = CurlTransferLoop(multi: multi, commands: commands, counters: counters,
                                    maxLookups: Self.maxLookups, partialBodies: PartialBodies(limit: keptPartialBytes))
        guard let thread = NativeThread(name: "lazyimg-net", { loop.run() }) else {
            curl_multi_cleanup(multi)
            return nil
        }
        self.commands = commands
        self.counters = counters
        self.thread = thread
    }

    deinit {
        // When the last reference is dropped inside a completion this runs on the
        // network thread: the thread then stops by itself, unjoined.
        shutdown()
    }

    /// Never blocks. After `shutdown` the request is dropped without a completion.
    ///
    /// Only queues the request: the scheduler calls this with its lock held, often
    /// from the UI thread, so the transfer's counters and bookkeeping are made on the
    /// network thread (`progress(of:)` is nil until the transfer has begun there).
    public func start(_ id: TransferID, _ request: DataRequest,
                      completion: @escaping @Sendable (TransferID, DataResponse) -> Void) {
        commands.enqueueStart(.init(id: id, request: request, completion: completion))
    }

    /// Never blocks. No completion follows for `id` once this returns, unless it was
    /// already running; its connection is closed if the response was still arriving.
    public func cancel(_ id: TransferID) {
        counters.withLock { $0[id] = nil }
        commands.enqueueCancel(id, keepingBytes: false)
    }

    /// As `cancel`; the network thread keeps the start of the body when the
    /// response can be resumed (`CurlTransfer+Resume`).
    public func cancelKeepingBytes(_ id: TransferID) {
        counters.withLock { $0[id] = nil }
        commands.enqueueCancel(id, keepingBytes: true)
    }

    /// Never blocks. The kept partial bodies of `url` (nil: all) go: a kept JPEG start
    /// may answer a small box without asking the server (`CurlTransfer+FirstPass`), and
    /// the host that forgot a URL wants it downloaded again.
    public func forgetRecentResponses(of url: ImageURL?) {
        commands.enqueueForget(url)
    }

    /// Never blocks for long: a dictionary lookup under a lock the network thread
    /// takes only when a transfer starts or ends, then two atomic loads.
    public func progress(of id: TransferID) -> TransferProgress? {
        counters.withLock { $0[id] }?.progress
    }

    /// Stops every transfer without completing it, waits for the network thread to
    /// end and lets it clean up the multi handle. Idempotent and safe with transfers in
    /// flight. Meant for other threads: called from a completion (on the network thread
    /// itself) it cannot wait for its own thread: it stops the loop, which completes
    /// nothing more once the current completion returns, and detaches the thread.
    public func shutdown() {
        commands.requestStop()
        joinGate.withLock { _ in thread.join() }
    }
}
