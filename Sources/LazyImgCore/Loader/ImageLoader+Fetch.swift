/// Data fetches: any URL's bytes (a feed page) through the loader's own network stack,
/// with its limits, timeout and headers, ahead of every image. One event per ticket.
extension ImageLoader {
    /// Starts fetching `url`; its one `.data` (or `.failed`) event follows for the
    /// returned ticket. Not cached, not coalesced, not held back while the list moves:
    /// the host asks for a page exactly when it needs one.
    public func fetch(url: ImageURL) throws(LoaderError) -> UInt64 {
        guard URLCheck.isLoadable(url, allowingFiles: configuration.allowFileURLs) else { throw .badURL }
        return try state.withLock { s throws(LoaderError) in
            guard !s.isShuttingDown else { throw .shutdown }
            let ticket = s.makeID()
            s.fetches.enqueue(.init(ticket: ticket, url: url))
            _pump(in: &s)
            return ticket
        }
    }

    /// Starts waiting fetches while transfer slots are free, before any image: called
    /// first thing whenever the loader starts work.
    func _startFetches(in s: inout LoaderState) {
        guard !s.isShuttingDown else { return }
        while s.downloading < configuration.maxConcurrentDownloads, s.fetches.hasWaiting {
            let transfer = s.makeID()
            guard let fetch = s.fetches.startNext(as: transfer) else { return }
            s.downloading += 1
            s.hostSlots.didStart(fetch.url)
            transport.start(transfer, configuration.dataRequest(for: fetch.url)) { [weak self] id, response in
                self?.fetchDidComplete(id, response)
            }
        }
    }

    /// Ends a live fetch with CANCELLED, stopping its transfer. False when `ticket` is
    /// not a live fetch.
    func _cancelFetch(_ ticket: UInt64, in s: inout LoaderState) -> Bool {
        guard let (fetch, transfer) = s.fetches.remove(ticket: ticket) else { return false }
        if let transfer {
            s.downloading -= 1
            transport.cancel(transfer)
            _hostSlotFreed(fetch.url, in: &s)
        }
        delivery.push(LoaderEvent(ticket: ticket, row: 0, url: fetch.url, outcome: .failed(.cancelled),
                                  httpStatus: 0))
        return true
    }

    /// Called on the network thread when a fetch's transfer ends.
    func fetchDidComplete(_ transfer: TransferID, _ response: DataResponse) {
        state.withLock { s in
            // A fetch cancelled meanwhile may still report; its event was sent already.
            guard let fetch = s.fetches.finish(transfer) else { return }
            s.downloading -= 1
            _hostSlotFreed(fetch.url, in: &s)
            s.stats.bytesDownloaded = s.stats.bytesDownloaded.addingClamped(response.bytesReceived)
            s.stats.bytesResumed = s.stats.bytesResumed.addingClamped(response.resumedBytes)
            let outcome: LoaderEvent.Outcome
            var message = ""
            switch response.result {
            case .success(let body):
                outcome = .data(body)
            case .failure(let error):
                outcome = .failed(error)
                message = FailureMessage.describe(error, bytes: nil)
            }
            delivery.push(LoaderEvent(ticket: fetch.ticket, row: 0, url: fetch.url, outcome: outcome,
                                      httpStatus: response.httpStatus, message: message))
            _pump(in: &s)
        }
    }
}
