/// One table of downloads for every loader of a session: requests for the same URL
/// (with the same headers and limits) share one transfer, whatever box each loader
/// decodes it into. The headers are the whole `RequestKey`'s, so loaders with other
/// credentials (or none) never join each other's download nor reuse its response.
///
/// A request that comes just after its transfer ended gets that response too
/// (`startOrReuse`): a loader that asks between another loader's download and that
/// loader's disk write would otherwise find neither and download again. Responses
/// the disk cache could keep (2xx, storable, fresh) are kept for a few seconds,
/// the newest few MiB.
///
/// Each loader talks to it through its own `Client`, a `DataLoading` with the
/// loader's own transfer IDs. A shared transfer is cancelled only when its last
/// subscriber cancels. Completions run on the network thread, never with a lock
/// held.
public final class TransferCoalescer: Sendable {
    /// What makes two requests the same download.
    private struct RequestKey: Hashable {
        var url: ImageURL
        var headers: [String]
        var validators: [String]
        var policy: NetworkPolicy
        var userAgent: String
        var maxResponseBytes: Int
        var timeoutMilliseconds: Int
        var accept: String?

        init(_ request: DataRequest) {
            url = request.url
            headers = request.headers
            validators = request.validators
            policy = request.policy
            userAgent = request.userAgent
            maxResponseBytes = request.maxResponseBytes
            timeoutMilliseconds = request.timeoutMilliseconds
            accept = request.accept
        }
    }

    /// A client's transfer.
    fileprivate struct Subscriber: Hashable {
        var client: UInt64
        var id: TransferID
    }

    /// One download and who waits for it. Requests that differ only in the box they
    /// may end at a JPEG's DC scans for (`DataRequest.firstPassBox`) share it: a body
    /// fetched whole stops at its first pass only when that serves every box waiting
    /// (`DataRequest.sharedBoxes`); a subscriber that a DC-only body does not serve
    /// (it joined too late, or a Range asked for the start) gets a follow-up
    /// download, which continues that body (`FirstPassFollowUp`).
    private struct SharedTransfer {
        var key: RequestKey
        /// As started: the first subscriber's.
        var request: DataRequest
        var subscribers: [Subscriber: @Sendable (TransferID, DataResponse) -> Void] = [:]
        /// Each subscriber's own box for the DC scans (nil: the whole file).
        var boxes: [Subscriber: DecodeOptions?] = [:]
        /// Those that want the body's prefixes (`DataRequest.onPrefix`). Only a
        /// transfer started with one looks at its body: one that joins later gets
        /// prefixes if the first subscriber asked for them.
        var prefixSinks: [Subscriber: PrefixSink] = [:]
    }

    private struct State {
        var lastID: TransferID = 0
        var lastClient: UInt64 = 0
        var transferByKey: [RequestKey: TransferID] = [:]
        var transferBySubscriber: [Subscriber: TransferID] = [:]
        var transfers: [TransferID: SharedTransfer] = [:]
        var recent = RecentResponses()
    }

    /// Responses that ended a moment ago. A lookup (on the thread starting a
    /// transfer, often the host's) is one hash lookup; the network thread, adding
    /// one, drops what expired or no longer fits, oldest first.
    private struct RecentResponses {
        private var byKey: [RequestKey: (response: DataResponse, bytes: Int, endedAt: Int64)] = [:]
        /// The keys of `byKey`, oldest first.
        private var order: [RequestKey] = []
        private var bytes = 0

        func response(for key: RequestKey, now: Int64) -> DataResponse? {
            guard let entry = byKey[key], now - entry.endedAt < TransferCoalescer.reuseMilliseconds else { return nil }
            return entry.response
        }

        mutating func add(_ response: DataResponse, for key: RequestKey, bytes count: Int, now: Int64) {
            forget { $0 == key }
            byKey[key] = (response, count, now)
            order.append(key)
            bytes += count
            var dropped = 0
            while dropped < order.count, let entry = byKey[order[dropped]],
                  bytes > TransferCoalescer.reuseBytes || now - entry.endedAt >= TransferCoalescer.reuseMilliseconds {
                bytes -= entry.bytes
                byKey[order[dropped]] = nil
                dropped += 1
            }
            order.removeFirst(dropped)
        }

        mutating func forget(where matches: (RequestKey) -> Bool) {
            for key in order where matches(key) {
                bytes -= byKey.removeValue(forKey: key)?.bytes ?? 0
            }
            order.removeAll(where: matches)
        }
    }

    /// How long and how much is kept for reuse: enough to span a decode and a disk
    /// write (milliseconds), bounded so that a fling's downloads cannot pile up.
    static let reuseMilliseconds: Int64 = 5_000
    static let reuseBytes = 4 << 20

    private let network: any DataLoading
    private let state = Locked(State())
    /// Times the reuse window; a manual clock in tests.
    private let clock: any Clock

    public init(network: any DataLoading, clock: any Clock = MonotonicClock()) {
        self.network = network
        self.clock = clock
    }

    deinit {
        network.shutdown()
    }

    /// A `DataLoading` for one loader.
    public func makeClient() -> any DataLoading {
        Client(coalescer: self, token: state.withLock { s in
            s.lastClient += 1
            return s.lastClient
        })
    }

    /// How many requests wait on the downloads of `url` right now: for tests that need
    /// a request to have joined a download before its body comes.
    func waitingCount(for url: ImageURL) -> Int {
        state.withLock { s in s.transfers.values.reduce(0) { $0 + ($1.key.url == url ? $1.subscribers.count : 0) } }
    }

    /// Joins or starts the transfer for `request`, or returns the response it ended
    /// with a moment ago (then nothing is started or joined).
    fileprivate func start(_ subscriber: Subscriber, _ request: DataRequest, reusing: Bool,
                           completion: @escaping @Sendable (TransferID, DataResponse) -> Void) -> DataResponse? {
        let key = RequestKey(request)
        let now = reusing ? clock.nowMilliseconds : 0
        return state.withLock { s -> DataResponse? in
            if reusing, let response = s.recent.response(for: key, now: now),
               FirstPassFollowUp.serves(response, box: request.firstPassBox) {
                return response
            }
            if let shared = s.transferByKey[key] {
                s.transfers[shared]?.subscribers[subscriber] = completion
                s.transfers[shared]?.boxes[subscriber] = .some(request.firstPassBox)
                s.transfers[shared]?.prefixSinks[subscriber] = request.onPrefix
                s.transferBySubscriber[subscriber] = shared
                return nil
            }
            _start(request, for: [subscriber: completion], boxes: [subscriber: request.firstPassBox],
                   prefixSinks: request.onPrefix.map { [subscriber: $0] } ?? [:], key: key, in: &s)
            return nil
        }
    }

    /// A new shared transfer of `request` for `subscribers`. (State lock held, so a
    /// cancel cannot reach the network before the start.)
    private func _start(_ request: DataRequest, for subscribers: [Subscriber: @Sendable (TransferID, DataResponse) -> Void],
                        boxes: [Subscriber: DecodeOptions?], prefixSinks: [Subscriber: PrefixSink],
                        key: RequestKey, in s: inout State) {
        s.lastID += 1
        let id = s.lastID
        s.transfers[id] = SharedTransfer(key: key, request: request, subscribers: subscribers, boxes: boxes,
                                         prefixSinks: prefixSinks)
        s.transferByKey[key] = id
        for subscriber in subscribers.keys { s.transferBySubscriber[subscriber] = id }
        var shared = request
        shared.onPrefix = nil
        shared.sharedBoxes = { @Sendable [weak self] in self?.boxes(of: id) ?? [] }
        if !prefixSinks.isEmpty {
            shared.onPrefix = { @Sendable [weak self] (prefix: ReceivedPrefix) in self?.offer(prefix, of: id) }
        }
        network.start(id, shared) { [weak self] id, response in self?.complete(id, response) }
    }

    /// The boxes transfer `id`'s subscribers wait for: a body stops at its first pass
    /// only when that serves them all.
    private func boxes(of id: TransferID) -> [DecodeOptions?] {
        state.withLock { s in s.transfers[id].map { Array($0.boxes.values) } ?? [] }
    }

    /// A prefix of transfer `id`'s body, for each subscriber that wants it.
    private func offer(_ prefix: ReceivedPrefix, of id: TransferID) {
        let sinks = state.withLock { s in s.transfers[id].map { Array($0.prefixSinks.values) } ?? [] }
        for sink in sinks { sink(prefix) }
    }

    fileprivate func forgetRecentResponses(of url: ImageURL?) {
        state.withLock { s in s.recent.forget { url == nil || $0.url == url } }
        network.forgetRecentResponses(of: url)
    }

    /// The last subscriber to leave decides whether the bytes may be kept.
    fileprivate func cancel(_ subscriber: Subscriber, keepingBytes: Bool = false) {
        state.withLock { s in
            guard let id = s.transferBySubscriber.removeValue(forKey: subscriber) else { return }
            s.transfers[id]?.subscribers[subscriber] = nil
            s.transfers[id]?.boxes[subscriber] = nil
            s.transfers[id]?.prefixSinks[subscriber] = nil
            if s.transfers[id]?.subscribers.isEmpty == true, let transfer = s.transfers.removeValue(forKey: id) {
                s.transferByKey[transfer.key] = nil
                if keepingBytes { network.cancelKeepingBytes(id) } else { network.cancel(id) }
            }
        }
    }

    /// The progress of the shared transfer behind a subscriber (for the scheduler's
    /// nearly-done rule). Lock order: a loader's lock, then this one, then the network's.
    fileprivate func progress(of subscriber: Subscriber) -> TransferProgress? {
        guard let shared = state.withLock({ $0.transferBySubscriber[subscriber] }) else { return nil }
        return network.progress(of: shared)
    }

    fileprivate func cancelAll(client: UInt64) {
        let mine = state.withLock { s in s.transferBySubscriber.keys.filter { $0.client == client } }
        for subscriber in mine { cancel(subscriber) }
    }

    private func complete(_ id: TransferID, _ response: DataResponse) {
        let reusable = Self.reusableBytes(response)
        let now = clock.nowMilliseconds
        let subscribers = state.withLock { s -> [Subscriber: @Sendable (TransferID, DataResponse) -> Void] in
            guard let transfer = s.transfers.removeValue(forKey: id) else { return [:] }
            s.transferByKey[transfer.key] = nil
            // In the same hold as the removal: a request after it finds this instead.
            if let reusable { s.recent.add(response, for: transfer.key, bytes: reusable, now: now) }
            var served = transfer.subscribers
            // Those a DC-only body does not serve download on, one follow-up per box;
            // the network continues the body it kept.
            var unserved: [DecodeOptions?: [Subscriber]] = [:]
            for (subscriber, box) in transfer.boxes where !FirstPassFollowUp.serves(response, box: box) {
                unserved[box, default: []].append(subscriber)
            }
            for (box, group) in unserved {
                var request = transfer.request
                request.firstPassBox = box
                var completions: [Subscriber: @Sendable (TransferID, DataResponse) -> Void] = [:]
                for subscriber in group { completions[subscriber] = served.removeValue(forKey: subscriber) }
                _start(request, for: completions, boxes: Dictionary(uniqueKeysWithValues: group.map { ($0, box) }),
                       prefixSinks: transfer.prefixSinks.filter { group.contains($0.key) }, key: transfer.key, in: &s)
            }
            for subscriber in served.keys { s.transferBySubscriber[subscriber] = nil }
            return served
        }
        for (subscriber, completion) in subscribers { completion(subscriber.id, response) }
    }

    /// The body's size if the response may answer a later request: what the disk
    /// cache would keep and serve without asking (RFC 9111: 2xx, not no-store, not
    /// `Vary: *`, fresh).
    private static func reusableBytes(_ response: DataResponse) -> Int? {
        let now = HTTPCacheMetadata.now
        guard case .success(let body) = response.result, (200..<300).contains(response.httpStatus),
              body.count <= reuseBytes, HTTPCacheMetadata.allowsStoring(response.cacheHeaders),
              HTTPCacheMetadata(headers: response.cacheHeaders, now: now).isFresh(now: now)
        else { return nil }
        return body.count
    }

    /// One loader's view: its own IDs, and a shutdown that ends its completions.
    private final class Client: DataLoading {
        private let coalescer: TransferCoalescer
        private let token: UInt64
        /// Guards `stopped` and `delivering`, so shutdown can wait out a completion
        /// running on the network thread.
        private let gate = Condition()
        nonisolated(unsafe) private var stopped = false
        nonisolated(unsafe) private var delivering = 0

        init(coalescer: TransferCoalescer, token: UInt64) {
            self.coalescer = coalescer
            self.token = token
        }

        func start(_ id: TransferID, _ request: DataRequest,
                   completion: @escaping @Sendable (TransferID, DataResponse) -> Void) {
            _ = start(id, request, reusing: false, completion: completion)
        }

        func startOrReuse(_ id: TransferID, _ request: DataRequest,
                          completion: @escaping @Sendable (TransferID, DataResponse) -> Void) -> DataResponse? {
            start(id, request, reusing: true, completion: completion)
        }

        private func start(_ id: TransferID, _ request: DataRequest, reusing: Bool,
                           completion: @escaping @Sendable (TransferID, DataResponse) -> Void) -> DataResponse? {
            guard !gate.locked({ stopped }) else { return nil }
            var request = request
            if let sink = request.onPrefix {
                request.onPrefix = { @Sendable [weak self] (prefix: ReceivedPrefix) in self?.admitted { sink(prefix) } }
            }
            return coalescer.start(Subscriber(client: token, id: id), request, reusing: reusing) { [weak self] id, response in
                self?.admitted { completion(id, response) }
            }
        }

        func forgetRecentResponses(of url: ImageURL?) {
            coalescer.forgetRecentResponses(of: url)
        }

        func cancel(_ id: TransferID) {
            coalescer.cancel(Subscriber(client: token, id: id))
        }

        func cancelKeepingBytes(_ id: TransferID) {
            coalescer.cancel(Subscriber(client: token, id: id), keepingBytes: true)
        }

        func progress(of id: TransferID) -> TransferProgress? {
            coalescer.progress(of: Subscriber(client: token, id: id))
        }

        /// Cancels this loader's transfers (shared ones go on for the others) and
        /// returns once no completion of this client is running or will run.
        func shutdown() {
            gate.locked {
                stopped = true
                while delivering > 0 { gate.wait() }
            }
            coalescer.cancelAll(client: token)
        }

        /// Runs a completion or a prefix's sink unless shutdown began.
        private func admitted(_ delivery: () -> Void) {
            let admitted = gate.locked {
                guard !stopped else { return false }
                delivering += 1
                return true
            }
            guard admitted else { return }
            delivery()
            gate.locked {
                delivering -= 1
                gate.broadcast()
            }
        }
    }
}
