/// One table of downloads for every loader of a session: requests for the same URL
/// (with the same headers and limits) share one transfer, whatever box each loader
/// decodes it into.
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

        init(_ request: DataRequest) {
            url = request.url
            headers = request.headers
            validators = request.validators
            policy = request.policy
            userAgent = request.userAgent
            maxResponseBytes = request.maxResponseBytes
            timeoutMilliseconds = request.timeoutMilliseconds
        }
    }

    /// A client's transfer.
    fileprivate struct Subscriber: Hashable {
        var client: UInt64
        var id: TransferID
    }

    private struct SharedTransfer {
        var key: RequestKey
        var subscribers: [Subscriber: @Sendable (TransferID, DataResponse) -> Void] = [:]
    }

    private struct State {
        var lastID: TransferID = 0
        var lastClient: UInt64 = 0
        var transferByKey: [RequestKey: TransferID] = [:]
        var transferBySubscriber: [Subscriber: TransferID] = [:]
        var transfers: [TransferID: SharedTransfer] = [:]
    }

    private let network: any DataLoading
    private let state = Locked(State())

    public init(network: any DataLoading) {
        self.network = network
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

    fileprivate func start(_ subscriber: Subscriber, _ request: DataRequest,
                           completion: @escaping @Sendable (TransferID, DataResponse) -> Void) {
        let key = RequestKey(request)
        state.withLock { s in
            if let shared = s.transferByKey[key] {
                s.transfers[shared]?.subscribers[subscriber] = completion
                s.transferBySubscriber[subscriber] = shared
                return
            }
            s.lastID += 1
            let id = s.lastID
            var transfer = SharedTransfer(key: key)
            transfer.subscribers[subscriber] = completion
            s.transfers[id] = transfer
            s.transferByKey[key] = id
            s.transferBySubscriber[subscriber] = id
            // Under the lock, so a cancel cannot reach the network before the start.
            network.start(id, request) { [weak self] id, response in self?.complete(id, response) }
        }
    }

    fileprivate func cancel(_ subscriber: Subscriber) {
        state.withLock { s in
            guard let id = s.transferBySubscriber.removeValue(forKey: subscriber) else { return }
            s.transfers[id]?.subscribers[subscriber] = nil
            if s.transfers[id]?.subscribers.isEmpty == true, let transfer = s.transfers.removeValue(forKey: id) {
                s.transferByKey[transfer.key] = nil
                network.cancel(id)
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
        let subscribers = state.withLock { s -> [Subscriber: @Sendable (TransferID, DataResponse) -> Void] in
            guard let transfer = s.transfers.removeValue(forKey: id) else { return [:] }
            s.transferByKey[transfer.key] = nil
            for subscriber in transfer.subscribers.keys { s.transferBySubscriber[subscriber] = nil }
            return transfer.subscribers
        }
        for (subscriber, completion) in subscribers { completion(subscriber.id, response) }
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
            guard !gate.locked({ stopped }) else { return }
            coalescer.start(Subscriber(client: token, id: id), request) { [weak self] id, response in
                self?.deliver(id, response, to: completion)
            }
        }

        func cancel(_ id: TransferID) {
            coalescer.cancel(Subscriber(client: token, id: id))
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

        private func deliver(_ id: TransferID, _ response: DataResponse,
                             to completion: @Sendable (TransferID, DataResponse) -> Void) {
            let admitted = gate.locked {
                guard !stopped else { return false }
                delivering += 1
                return true
            }
            guard admitted else { return }
            completion(id, response)
            gate.locked {
                delivering -= 1
                gate.broadcast()
            }
        }
    }
}
