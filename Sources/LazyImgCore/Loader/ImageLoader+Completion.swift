/// What happens when a download or a decode ends. Called on the network and decode
/// threads; each takes the state lock once.
extension ImageLoader {
    func transferDidComplete(_ transfer: TransferID, _ received: DataResponse) {
        // A 304, or a failure a stale disk copy may answer instead, becomes that copy.
        let (response, origin) = resolveWithDiskCopy(transfer, received)
        let source: ImageSource = origin == .network || origin == .dcScans ? .network : .disk
        // Encoded output needs no decode; the image (a copy of the bytes) is made before
        // taking the lock, which every host call waits on.
        var encoded: Result<DecodedImage, LoaderError>?
        if configuration.output == .encoded, case .success(let bytes) = response.result {
            encoded = ImageFormat(sniffing: bytes).map { .success(DecodedImage(encoded: bytes, codec: $0)) }
                ?? .failure(.unsupported)
        }
        state.withLock { s in
            // A transfer we cancelled may still report; it is no longer known.
            guard let key = s.jobByTransfer.removeValue(forKey: transfer), let job = s.jobs[key] else { return }
            s.downloading -= 1
            _hostSlotFreed(key.url, in: &s)
            s.stats.bytesDownloaded = s.stats.bytesDownloaded.addingClamped(response.bytesReceived)
            s.stats.bytesResumed = s.stats.bytesResumed.addingClamped(response.resumedBytes)
            if case .success(let bytes) = response.result, job.tickets.isEmpty,
               let row = job.prefetchRow ?? job.startRow {
                _fetchedUnasked(key, row: row, bytes: bytes.count, in: &s)
            }
            if case .success = response.result { s.hostBackoff.recordSuccess(of: key.url) }
            if case .revalidated = origin { s.stats.diskRevalidations += 1 }
            switch response.result {
            case .success(let bytes) where encoded != nil && diskCache == nil:
                // The host decodes: hand out the file once its bytes say it is an image.
                if let encoded { _finishJob(job.id, key, encoded, httpStatus: response.httpStatus, bytes: bytes, in: &s) }
            case .success(let bytes):
                // With a disk cache, encoded output too goes through a decode thread: it
                // writes the file after answering, and a loader destroyed meanwhile
                // waits for that running job.
                _queueDecode(job, bytes, encoded: encoded, httpStatus: response.httpStatus, source: source,
                             origin: origin, headers: response.cacheHeaders, in: &s)
            case .failure(let error):
                s.stats.downloadsFailed += 1
                _downloadDidFail(key, error, response, in: &s)
            }
            _pump(in: &s)
        }
        trimSessionMemory()
    }

    /// A job's image is ready (or could not be made from its bytes): cache it and
    /// answer every ticket. `decoded` is false for a thumbnail read from disk;
    /// `decoderReason` is why the decoder refused the bytes, when it said.
    func _finishJob(_ jobID: UInt64, _ key: CacheKey, _ result: Result<DecodedImage, LoaderError>,
                    httpStatus: Int, bytes: [UInt8], source: ImageSource = .network, decoded: Bool = true,
                    decoderReason: String = "", in s: inout LoaderState) {
        switch result {
        case .success(let image):
            if image.encoded == nil && decoded { s.stats.imagesDecoded += 1 }
            // Even for a job cancelled meanwhile: the work is done, keep it.
            _insertImage(image, for: key, in: &s)
            guard let job = s.jobs[key], job.id == jobID else { return }
            s.jobs[key] = nil
            // Fetched unasked, then asked for while it downloaded or decoded.
            if !job.tickets.isEmpty && s.prefetch.shown(key) { s.stats.prefetchHits += 1 }
            for id in job.tickets.ids.sorted() {
                _finish(id, .image(image, source), httpStatus: httpStatus, in: &s)
            }
        case .failure(let error):
            guard let job = s.jobs[key], job.id == jobID else { return }
            let message = decoderReason.isEmpty ? FailureMessage.describe(error, bytes: bytes) : decoderReason
            _fail(key, error, httpStatus: httpStatus, message: message, in: &s)
        }
    }

    /// Ends every ticket of the job with `error` and remembers the failure, so the URL
    /// answers at once for a while and is then tried again.
    func _fail(_ key: CacheKey, _ error: LoaderError, httpStatus: Int, message: String,
                       in s: inout LoaderState) {
        guard let job = s.jobs.removeValue(forKey: key) else { return }
        s.failures.record(key.url, error: error, httpStatus: httpStatus, now: clock.nowMilliseconds)
        for id in job.tickets.ids.sorted() {
            _finish(id, .failed(error), httpStatus: httpStatus, message: message, in: &s)
        }
    }
}

extension ImageLoader {
    /// An image nobody asked for is in the cache: prefetched for a row still in the
    /// window it waits to be shown; otherwise (a download finished because it was
    /// nearly done) it is waste unless the list comes back for it.
    func _fetchedUnasked(_ key: CacheKey, row: Int, bytes: Int, in s: inout LoaderState) {
        if s.window.wants(row) {
            s.prefetch.fetched(key, row: row, bytes: bytes)
            s.claimed.insert(row)
        } else {
            s.stats.prefetchWasted += 1
            s.stats.prefetchWasteBytes = s.stats.prefetchWasteBytes.addingClamped(bytes)
        }
    }
}
