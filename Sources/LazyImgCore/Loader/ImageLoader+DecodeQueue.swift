import CLazyImgSupport

/// Downloaded files on their way through the decode pool, under a memory budget.
///
/// A download's body waits in the pool's queue until a decode thread is free; with
/// fast downloads and slow decodes those bodies pile up (200 rows of a 27 MB PNG
/// reached 2.1 GB). `downloadBudget` counts them from download end until the decode
/// job let go of them, together with the bodies of running transfers (which pause
/// while it is spent): `_pump` starts no download while it holds more than
/// `configuration.decodeQueueBytes`, and a decode whose rows left the screen while it
/// waited is skipped, not run.
extension ImageLoader {
    /// Files this large give their freed pages back to the system when dropped.
    /// glibc raises its mmap threshold to the largest block freed (up to 32 MiB), so
    /// the next bodies come from arenas that keep freed pages resident: 40 rows of
    /// 27 MB files left about 80 MiB more resident than was in use.
    static let trimAfterBytes = 4 << 20

    /// Hands a downloaded job's bytes to the decode pool. `encoded` is the image when
    /// the host decodes (it only passes through, to be written to disk after the
    /// tickets are answered); `origin` and `headers` say how to keep it on disk.
    func _queueDecode(_ job: Job, _ bytes: [UInt8], encoded: Result<DecodedImage, LoaderError>? = nil,
                      httpStatus: Int, source: ImageSource = .network, origin: DownloadOrigin = .network,
                      headers: HTTPCacheHeaders = HTTPCacheHeaders(), in s: inout LoaderState) {
        let key = job.key
        let options = configuration.decodeOptions
        let limits = configuration.decodeLimits
        let file = QueuedFile(bytes)
        s.jobs[key]?.phase = .decoding
        downloadBudget.queue(bytes.count)
        let submitted = decodePool.submit(priority: job.rank(in: s.window)) { [weak self] decoder in
            guard let self else { return }
            guard state.withLock({ s in _claimDecode(job.id, key, byteCount: file.count, in: &s) }) else {
                return file.drop()
            }
            let result: Result<DecodedImage, LoaderError>
            var reason = ""
            if let encoded {
                result = encoded
            } else {
                do throws(LoaderError) {
                    let image = try decoder.decode(file.bytes, options: options, limits: limits)
                    attachAnimation(to: image, from: file.bytes)
                    result = .success(image)
                } catch {
                    result = .failure(error)
                    reason = decoder.lastFailureReason
                }
            }
            let stored = if case .success = result, diskCache != nil { true } else { false }
            state.withLock { s in
                _finishJob(job.id, key, result, httpStatus: httpStatus, bytes: file.bytes, source: source,
                           decoderReason: reason, in: &s)
                // Without a write to come the bytes go right after this hold: in the
                // same hold as the answer, so the host never sees an event before
                // the downloads it let start.
                if !stored { _fileLeftTheQueue(file.count, in: &s) }
            }
            trimSessionMemory()
            guard stored, case .success(let image) = result else { return file.drop() }
            // After the tickets are answered: the write does not delay them.
            storeOnDisk(key, bytes: file.bytes, image: image, origin: origin, headers: headers)
            fileLeftTheQueue(file)
        }
        // Refused only once shutdown began, which has ended every ticket already.
        guard submitted else {
            downloadBudget.unqueue(bytes.count)
            s.jobs[key] = nil
            return
        }
    }

    /// On a decode thread, once a disk write is done with a file: the bytes go first,
    /// then the budget hears, so it never counts as free what a slow write still holds.
    private func fileLeftTheQueue(_ file: QueuedFile) {
        let count = file.count
        file.drop()
        state.withLock { s in _fileLeftTheQueue(count, in: &s) }
    }

    /// The budget gets a file's bytes back, in one hold with the pump: whoever sees
    /// them gone also sees the downloads they let start. The room, or a prefetched
    /// image shown meanwhile, may let more start. (State lock held.)
    private func _fileLeftTheQueue(_ count: Int, in s: inout LoaderState) {
        downloadBudget.unqueue(count)
        _pump(in: &s)
    }

    /// On a decode thread, as the job leaves the queue: whether it is still wanted (or
    /// its download finished because it was nearly done: that one fills the cache). A
    /// job nothing wants any more gives its bytes back and lets the next download start.
    private func _claimDecode(_ jobID: UInt64, _ key: CacheKey, byteCount: Int, in s: inout LoaderState) -> Bool {
        if let job = s.jobs[key], job.id == jobID, job.isWanted || job.finishesUnwanted { return true }
        s.stats.decodesSkipped += 1
        // A job is dropped as soon as nothing wants it, so no ticket should remain here;
        // any that does still gets its one event.
        if let job = s.jobs[key], job.id == jobID {
            s.jobs[key] = nil
            for id in job.tickets.ids.sorted() {
                _finish(id, .failed(.cancelled), httpStatus: 0, in: &s)
            }
        }
        _fileLeftTheQueue(byteCount, in: &s)
        return false
    }
}

/// A downloaded file in a decode job, which lets go of the bytes itself: a closure's
/// captures live until the pool drops the closure, after the budget should know.
private final class QueuedFile: @unchecked Sendable {
    // @unchecked: made before the job is queued (the pool's lock hands it over), then
    // touched only by the one decode thread running the job.
    private(set) var bytes: [UInt8]
    let count: Int

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        count = bytes.count
    }

    /// Lets go of the bytes; a large file's freed pages go back to the system.
    func drop() {
        bytes = []
        if count >= ImageLoader.trimAfterBytes { lazyimg_release_free_memory() }
    }
}
