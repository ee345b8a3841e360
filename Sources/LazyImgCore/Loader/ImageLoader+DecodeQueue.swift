/// Downloaded files on their way through the decode pool, under a memory budget.
///
/// A download's body waits in the pool's queue until a decode thread is free; with
/// fast downloads and slow decodes those bodies pile up (200 rows of a 27 MB PNG
/// reached 2.1 GB). `decodeQueuedBytes` counts them from download end to decode end,
/// `_pump` starts no download while it is over `configuration.decodeQueueBytes`, and a
/// decode whose rows left the screen while it waited is skipped, not run.
extension ImageLoader {
    /// Hands a downloaded job's bytes to the decode pool. `encoded` is the image when
    /// the host decodes (it only passes through, to be written to disk after the
    /// tickets are answered); `origin` and `headers` say how to keep it on disk.
    func _queueDecode(_ job: Job, _ bytes: [UInt8], encoded: Result<DecodedImage, LoaderError>? = nil,
                      httpStatus: Int, source: ImageSource = .network, origin: DownloadOrigin = .network,
                      headers: HTTPCacheHeaders = HTTPCacheHeaders(), in s: inout LoaderState) {
        let key = job.key
        let options = configuration.decodeOptions
        let limits = configuration.decodeLimits
        s.jobs[key]?.phase = .decoding
        let submitted = decodePool.submit(priority: job.rank(in: s.window)) { [weak self] decoder in
            guard let self, state.withLock({ s in _claimDecode(job.id, key, byteCount: bytes.count, in: &s) })
            else { return }
            let result: Result<DecodedImage, LoaderError>
            var reason = ""
            if let encoded {
                result = encoded
            } else {
                do throws(LoaderError) {
                    let image = try decoder.decode(bytes, options: options, limits: limits)
                    attachAnimation(to: image, from: bytes)
                    result = .success(image)
                } catch {
                    result = .failure(error)
                    reason = decoder.lastFailureReason
                }
            }
            state.withLock { s in
                s.decodeQueuedBytes -= bytes.count
                _finishJob(job.id, key, result, httpStatus: httpStatus, bytes: bytes, source: source,
                           decoderReason: reason, in: &s)
                // Freed queue bytes, or a hit on a prefetched image lifting the waste
                // budget, may let more downloads start.
                _pump(in: &s)
            }
            trimSessionMemory()
            // After the tickets are answered: the write does not delay them.
            if case .success(let image) = result {
                storeOnDisk(key, bytes: bytes, image: image, origin: origin, headers: headers)
            }
        }
        // Refused only once shutdown began, which has ended every ticket already.
        guard submitted else {
            s.jobs[key] = nil
            return
        }
        s.decodeQueuedBytes += bytes.count
    }

    /// On a decode thread, as the job leaves the queue: whether it is still wanted (or
    /// its download finished because it was nearly done: that one fills the cache). A
    /// job nothing wants any more gives its bytes back and lets the next download
    /// start.
    private func _claimDecode(_ jobID: UInt64, _ key: CacheKey, byteCount: Int, in s: inout LoaderState) -> Bool {
        if let job = s.jobs[key], job.id == jobID, job.isWanted || job.finishesUnwanted { return true }
        s.decodeQueuedBytes -= byteCount
        s.stats.decodesSkipped += 1
        // A job is dropped as soon as nothing wants it, so no ticket should remain here;
        // any that does still gets its one event.
        if let job = s.jobs[key], job.id == jobID {
            s.jobs[key] = nil
            for id in job.tickets.ids.sorted() {
                _finish(id, .failed(.cancelled), httpStatus: 0, in: &s)
            }
        }
        _pump(in: &s)
        return false
    }
}
