import Glibc

/// Reads `file://` URLs on a thread of its own, never libcurl's file handler.
///
/// libcurl opens and reads a file URL with blocking calls inside curl_multi_perform,
/// on the one network thread: a FIFO, /dev/stdin or a tty there stalled every
/// download, and destroy with it. Here the file is opened with O_NONBLOCK (so opening
/// a FIFO or a device returns at once) and O_NOCTTY, and only a regular file is read,
/// bounded by the request's size limit. A slow disk can still hold this thread, but
/// never the network.
public final class LocalFileLoader: DataLoading {
    private let queue: FileReadQueue
    private let thread: NativeThread
    /// Serialises joins, as in CurlDataLoader: every `shutdown` returns after the thread ended.
    private let joinGate = Locked(())

    /// nil when the thread cannot be made.
    public init?() {
        let queue = FileReadQueue()
        guard let thread = NativeThread(name: "lazyimg-file", priority: .background, {
            while let start = queue.next() {
                let response = LocalFileLoader.read(start.request)
                if queue.finishReading() { start.completion(start.id, response) }
            }
        }) else { return nil }
        self.queue = queue
        self.thread = thread
    }

    deinit {
        shutdown()
    }

    /// Never blocks. After `shutdown` the request is dropped without a completion.
    public func start(_ id: TransferID, _ request: DataRequest,
                      completion: @escaping @Sendable (TransferID, DataResponse) -> Void) {
        queue.enqueue(.init(id: id, request: request, completion: completion))
    }

    public func cancel(_ id: TransferID) {
        queue.cancel(id)
    }

    public func shutdown() {
        queue.stop()
        joinGate.withLock { _ in thread.join() }
    }

    /// The file's bytes, or why not: BAD_URL for a URL naming no local path, IO for a
    /// file that cannot be opened or is not a regular file, TOO_LARGE past the limit.
    static func read(_ request: DataRequest) -> DataResponse {
        func failure(_ error: LoaderError, bytes: Int = 0) -> DataResponse {
            DataResponse(result: .failure(error), httpStatus: 0, bytesReceived: bytes)
        }
        guard let path = LocalFilePath.path(of: request.url) else { return failure(.badURL) }
        let limit = request.maxResponseBytes > 0
            ? min(request.maxResponseBytes, LoaderConfiguration.maxResponseBytesCap)
            : LoaderConfiguration.maxResponseBytesCap
        switch RegularFile.read(path, limit: limit) {
        case .success(let body):
            return DataResponse(result: .success(body), httpStatus: 0, bytesReceived: body.count)
        case .failure(.tooLarge):
            return failure(.tooLarge)
        case .failure:
            return failure(.io)
        }
    }
}

/// The file reader's waiting starts, guarded by one condition.
private final class FileReadQueue: @unchecked Sendable {
    // @unchecked: `state` is only touched with `condition` locked.
    struct Start {
        let id: TransferID
        let request: DataRequest
        let completion: @Sendable (TransferID, DataResponse) -> Void
    }

    private struct State {
        var waiting: [Start] = []
        /// The start being read now; cancelling it suppresses its completion.
        var reading: TransferID?
        var isReadingCancelled = false
        var isStopping = false
    }

    private let condition = Condition()
    private var state = State()

    func enqueue(_ start: Start) {
        condition.locked {
            guard !state.isStopping else { return }
            state.waiting.append(start)
            condition.signal()
        }
    }

    func cancel(_ id: TransferID) {
        condition.locked {
            state.waiting.removeAll { $0.id == id }
            if state.reading == id { state.isReadingCancelled = true }
        }
    }

    func stop() {
        condition.locked {
            state.isStopping = true
            state.waiting = []
            condition.broadcast()
        }
    }

    /// Reader thread: waits for the next start; nil once stopping.
    func next() -> Start? {
        condition.locked {
            while state.waiting.isEmpty && !state.isStopping { condition.wait() }
            guard !state.isStopping else { return nil }
            let start = state.waiting.removeFirst()
            state.reading = start.id
            state.isReadingCancelled = false
            return start
        }
    }

    /// Reader thread, after reading: whether the completion may run (not cancelled
    /// meanwhile, not stopping).
    func finishReading() -> Bool {
        condition.locked {
            defer { state.reading = nil }
            return !state.isStopping && !state.isReadingCancelled
        }
    }
}
