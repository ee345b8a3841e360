/// What happens when a download or a decode ends. Called on the network and decode
/// threads; each takes the state lock once.
extension ImageLoader {
    func transferDidComplete(_ transfer: TransferID, _ response: DataResponse) {
        state.withLock { s in
            // A transfer we cancelled may still report; it is no longer known.
            guard let key = s.jobByTransfer.removeValue(forKey: transfer), let job = s.jobs[key] else { return }
            s.downloading -= 1
            switch response.result {
            case .success(let bytes):
                s.stats.bytesDownloaded += UInt64(bytes.count)
                s.jobs[key]?.phase = .decoding
                let target = configuration.target
                let limits = DecodeLimits(maxPixels: configuration.maxPixels)
                let httpStatus = response.httpStatus
                let submitted = decodePool.submit(priority: job.rank(in: s.view)) { [weak self] decoder in
                    let result: Result<DecodedImage, LoaderError>
                    do throws(LoaderError) {
                        result = .success(try decoder.decode(bytes, target: target, limits: limits))
                    } catch {
                        result = .failure(error)
                    }
                    self?.decodeDidComplete(jobID: job.id, key: key, result, httpStatus: httpStatus)
                }
                // Refused only once shutdown began, which has ended every ticket already.
                if !submitted { s.jobs[key] = nil }
            case .failure(let error):
                s.stats.downloadsFailed += 1
                _fail(key, error, httpStatus: response.httpStatus, in: &s)
            }
            _pump(in: &s)
        }
    }

    func decodeDidComplete(jobID: UInt64, key: CacheKey, _ result: Result<DecodedImage, LoaderError>,
                           httpStatus: Int) {
        state.withLock { s in
            switch result {
            case .success(let image):
                s.stats.imagesDecoded += 1
                // Even for a job cancelled meanwhile: the work is done, keep it.
                s.cache.insert(image, for: key)
                guard let job = s.jobs[key], job.id == jobID else { return }
                s.jobs[key] = nil
                for id in job.tickets.keys.sorted() {
                    _finish(id, .image(image, .network), httpStatus: httpStatus, in: &s)
                }
            case .failure(let error):
                guard let job = s.jobs[key], job.id == jobID else { return }
                _fail(key, error, httpStatus: httpStatus, in: &s)
            }
        }
    }

    /// Ends every ticket of the job with `error` and remembers the failure, so the URL
    /// answers at once for a while and is then tried again.
    private func _fail(_ key: CacheKey, _ error: LoaderError, httpStatus: Int, in s: inout LoaderState) {
        guard let job = s.jobs.removeValue(forKey: key) else { return }
        s.failures.record(key.url, error: error, httpStatus: httpStatus, now: clock.nowMilliseconds)
        for id in job.tickets.keys.sorted() {
            _finish(id, .failed(error), httpStatus: httpStatus, in: &s)
        }
    }
}
