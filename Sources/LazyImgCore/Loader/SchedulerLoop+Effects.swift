import CLazyImgSupport

/// The scheduler's effects carried out, on its thread, and the worker jobs they
/// queue: decodes, and disk reads and writes. What comes back (a completion, a
/// worker's result) is pushed as an input for the scheduler's next step.
extension SchedulerLoop {
    /// Files this large give their freed pages back to the system when dropped.
    /// glibc raises its mmap threshold to the largest block freed (up to 32 MiB), so
    /// the next bodies come from arenas that keep freed pages resident: 40 rows of
    /// 27 MB files left about 80 MiB more resident than was in use.
    static let trimAfterBytes = 4 << 20

    /// Carries out one input's effects in order, collecting the events they decided
    /// into `events` for the step to queue once it is done (`SchedulerLoop.step`).
    func carryOut(_ effects: [SchedulerEffect], events: inout [LoaderEvent]) {
        var cached = false
        for effect in effects {
            switch effect {
            case .startDownload(let id, let url, let validators):
                var request = configuration.imageRequest(for: url)
                request.memoryBudget = downloadBudget
                if let validators {
                    request.validators = validators
                    // The copy to revalidate is the whole file.
                    request.firstPassBox = nil
                }
                if configuration.wantsPreviews {
                    request.onPrefix = { [weak self] prefix in self?.post(work: .receivedPrefix(id, prefix)) }
                }
                let completion = downloadCompletion
                // Another loader of the session downloaded it a moment ago: its
                // response, handed on like a completion.
                if let reused = transport.startOrReuse(id, request, completion: completion) { completion(id, reused) }
            case .startFetch(let id, let url):
                transport.start(id, configuration.dataRequest(for: url)) { [weak self] id, response in
                    self?.post(work: .fetched(id, response))
                }
            case .cancelTransfer(let id, let keepingBytes):
                if keepingBytes { transport.cancelKeepingBytes(id) } else { transport.cancel(id) }
            case .readDisk(let job, let key, let priority):
                queueDiskRead(job: job, key: key, priority: priority)
            case .decode(let work):
                queueDecode(work)
            case .decodePreview(let job, let key, let bytes, let passesShown):
                queuePreviewDecode(job: job, key: key, bytes: bytes, passesShown: passesShown)
            case .preview(let event):
                // In the front's hold: a cancel that retires the ticket queues its
                // CANCELLED after it, or this sees the ticket gone.
                front.withLock { f in
                    if f.isLive(event.ticket) { delivery.push(contentsOf: CollectionOfOne(event)) }
                }
            case .cache(let image, let key, let unseenPrefetch):
                front.withLock { f in f.insertImage(image, for: key, unseenPrefetch: unseenPrefetch) }
                cached = true
            case .recordFailure(let url, let failure):
                front.withLock { $0.failures.record(url, error: failure.error, httpStatus: failure.httpStatus,
                                                    now: failure.at) }
            case .finish(let event):
                // A ticket the host cancelled (or a new list ended) has its event already.
                if front.withLock({ $0.retire(event.ticket) }) != nil { events.append(event) }
            case .event(let event):
                events.append(event)
            }
        }
        // Without the front lock: the session may evict from this loader or another.
        if cached { configuration.session?.memoryBudget?.trim() }
    }

    /// What a download's completion calls, on the network thread: the loop weakly, as
    /// a transfer may outlive it.
    private var downloadCompletion: @Sendable (TransferID, DataResponse) -> Void {
        // The host decodes, and no disk cache stands between: the image (a copy of
        // the bytes) is made here, off the scheduler's thread.
        let encodesHere = configuration.output == .encoded && diskCache == nil
        return { [weak self] id, response in
            var encoded: Result<DecodedImage, LoaderError>?
            if encodesHere, case .success(let bytes) = response.result { encoded = Self.encodedImage(bytes) }
            self?.post(work: .downloaded(id, response, encoded: encoded, wallClock: HTTPCacheMetadata.now))
        }
    }

    // MARK: Decodes

    /// Queues a downloaded file's decode on a worker. The worker skips it if the job
    /// is unwanted by then; after answering it writes the file to disk.
    private func queueDecode(_ work: DecodeWork) {
        let file = QueuedFile(work.bytes)
        let submitted = workers.submit(priority: work.priority) { [weak self] decoder in
            guard let self, work.claim.claim() else {
                // The bytes go first, then the budget hears, so it never counts as
                // free what this job still holds.
                file.drop()
                self?.post(work: .decodeSkipped(job: work.job, key: work.key, releasedBytes: file.count))
                return
            }
            let result = makeImage(file.bytes, work.key, decoder: decoder, firstPass: work.origin == .firstPass)
            // The decoder's own reason when it gave one (a damaged or hostile file).
            let reason = configuration.output == .encoded ? "" : decoder.lastFailureReason
            let message = result.failure.map { error in
                reason.isEmpty ? FailureMessage.describe(error, bytes: file.bytes) : reason
            } ?? ""
            guard diskCache != nil, case .success(let image) = result else {
                post(work: .decoded(job: work.job, key: work.key, result, httpStatus: work.httpStatus, message: message,
                                    source: work.source, releasedBytes: file.count))
                return file.drop()
            }
            post(work: .decoded(job: work.job, key: work.key, result, httpStatus: work.httpStatus, message: message,
                                source: work.source, releasedBytes: nil))
            // After the answer: the write does not delay it, and a loader destroyed
            // meanwhile waits for it.
            storeOnDisk(work.key, bytes: file.bytes, image: image, origin: work.origin, headers: work.headers)
            file.drop()
            post(work: .fileReleased(file.count))
        }
        // Refused only once shutdown began, which has ended every ticket already.
        if !submitted { downloadBudget.unqueue(work.bytes.count) }
    }

    /// Queues a preview's decode behind every final decode (the lowest priority),
    /// or skips it when decodes wait already: a preview must never delay a final.
    private func queuePreviewDecode(job: UInt64, key: CacheKey, bytes: [UInt8], passesShown: Int) {
        let submitted = workers.queuedCount == 0 && workers.submit(priority: .max) { [weak self] decoder in
            guard let self else { return }
            let preview = PreviewDecode.image(bytes, options: key.options, limits: configuration.decodeLimits,
                                              passesShown: passesShown, decoder: decoder)
            post(work: .previewDecoded(job: job, key: key, preview?.image, passes: preview?.passes ?? 0))
        }
        if !submitted { post(work: .previewDecoded(job: job, key: key, nil, passes: 0)) }
    }

    /// What this loader hands out for a file's bytes.
    /// `firstPass`: the bytes are a file's start up to its first pass
    /// (`DownloadOrigin.firstPass`); a PNG's decodes as its first Adam7 pass, a
    /// JPEG's (ended with an EOI) as any JPEG.
    func makeImage(_ bytes: [UInt8], _ key: CacheKey, decoder: any ImageDecoding,
                   firstPass: Bool = false) -> Result<DecodedImage, LoaderError> {
        if configuration.output == .encoded { return Self.encodedImage(bytes) }
        do throws(LoaderError) {
            let image = firstPass && ImageFormat(sniffing: bytes) == .png
                ? try PNGInterlacedPrefix.decodeFirstPass(bytes, options: key.options, limits: configuration.decodeLimits)
                : try decoder.decode(bytes, options: key.options, limits: configuration.decodeLimits)
            configuration.attachAnimation(to: image, from: bytes)
            return .success(image)
        } catch {
            return .failure(error)
        }
    }

    /// The file itself, for a host that decodes, once its bytes say it is an image.
    private static func encodedImage(_ bytes: [UInt8]) -> Result<DecodedImage, LoaderError> {
        ImageFormat(sniffing: bytes).map { .success(DecodedImage(encoded: bytes, codec: $0)) } ?? .failure(.unsupported)
    }
}

/// A downloaded file in a decode job, which lets go of the bytes itself: a closure's
/// captures live until the pool drops the closure, after the budget should know.
private final class QueuedFile: @unchecked Sendable {
    // @unchecked: made before the job is queued (the pool's lock hands it over), then
    // touched only by the one worker running the job.
    private(set) var bytes: [UInt8]
    let count: Int

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        count = bytes.count
    }

    /// Lets go of the bytes; a large file's freed pages go back to the system.
    func drop() {
        bytes = []
        if count >= SchedulerLoop.trimAfterBytes { lazyimg_release_free_memory() }
    }
}
