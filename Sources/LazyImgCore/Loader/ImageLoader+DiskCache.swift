/// The disk cache between memory and the network: looked in once per job on a decode
/// thread before any download, written after a download's tickets are answered.
///
/// For each URL it keeps the original bytes with their HTTP metadata, and the
/// thumbnail for every box a loader used, so a warm start neither downloads nor
/// decodes. A stale original is revalidated by the download (If-None-Match /
/// If-Modified-Since); a 304 makes it fresh again without a body. Entries are
/// filed under this loader's credentials (`DataRequest.credentialScope`) and
/// answer only requests its response's Vary selects.
extension ImageLoader {
    /// What the disk held for a job.
    enum DiskLookup {
        /// `decoded`: made from the original, not read as a thumbnail.
        case image(DecodedImage, decoded: Bool)
        /// Present but stale: revalidate it (and serve it if the network fails).
        case stale(DiskCache.Entry)
        case miss
    }

    /// Where a download's bytes came from in the end.
    enum DownloadOrigin: Equatable {
        case network
        /// The network, up to a progressive JPEG's DC scans (`DataResponse.endsAtDCScans`):
        /// the bytes serve this box only, so only its thumbnail is kept.
        case dcScans
        /// A 304 confirmed the stale copy; store it again with this metadata.
        case revalidated(HTTPCacheMetadata)
        /// The network failed and the stale copy answered instead.
        case stale
    }

    /// Every waiting job not yet looked for on disk goes to look now: disk reads take
    /// no download slot, so an image on disk never waits behind downloads. (State
    /// lock held.)
    func _startDiskReads(in s: inout LoaderState) {
        guard diskCache != nil else { return }
        for (key, job) in s.jobs where job.phase == .waiting && !job.diskChecked {
            _startDiskRead(key, in: &s)
        }
    }

    /// Sends the job to a decode thread to look on disk. (State lock held.)
    func _startDiskRead(_ key: CacheKey, in s: inout LoaderState) {
        guard let diskCache, let job = s.jobs[key] else { return }
        s.jobs[key]?.phase = .readingDisk
        let submitted = decodePool.submit(priority: job.rank(in: s.window)) { [weak self] decoder in
            guard let self else { return }
            let found = lookUpOnDisk(diskCache, key, decoder: decoder)
            state.withLock { s in _diskReadDidFinish(job.id, key, found, in: &s) }
            trimSessionMemory()
        }
        // Refused only once shutdown began, which has ended every ticket already.
        if !submitted { s.jobs[key] = nil }
    }

    /// On a decode thread: the thumbnail for this box if fresh, else the original
    /// decoded (and its thumbnail written for next time).
    private func lookUpOnDisk(_ disk: DiskCache, _ key: CacheKey, decoder: any ImageDecoding) -> DiskLookup {
        let now = HTTPCacheMetadata.now
        let request = configuration.dataRequest(for: key.url)
        let thumbnailKey = DiskCache.Key(request: request, variant: DiskCacheThumbnail.variant(key.options))
        // An animation's thumbnail holds its first frame only: one that plays needs
        // the original.
        if storesThumbnails(key), let thumbnail = disk.read(thumbnailKey), thumbnail.metadata.isFresh(now: now),
           thumbnail.metadata.isSelected(by: request), let image = DiskCacheThumbnail.decode(thumbnail.body),
           !(image.isAnimated && playsAnimations) {
            return .image(image, decoded: false)
        }
        guard let original = disk.read(DiskCache.Key(request: request)), original.metadata.isSelected(by: request)
        else { return .miss }
        guard original.metadata.isFresh(now: now) else { return .stale(original) }
        guard case .success(let image) = makeImage(original.body, key, decoder: decoder) else {
            // Intact on disk but not an image this loader can use: fetch it again.
            disk.remove(group: key.url.bytes)
            return .miss
        }
        if storesThumbnails(key) {
            // Not fsync'd: it is made again from the original if a power loss tears it.
            disk.store(thumbnailKey, body: DiskCacheThumbnail.encode(image), metadata: original.metadata,
                       durable: false)
        }
        return .image(image, decoded: true)
    }

    /// A disk answer: the job's image, or on to the network. (State lock held.)
    private func _diskReadDidFinish(_ jobID: UInt64, _ key: CacheKey, _ found: DiskLookup, in s: inout LoaderState) {
        switch found {
        case .image(let image, let decoded):
            s.stats.diskHits += 1
            _finishJob(jobID, key, .success(image), httpStatus: 0, bytes: [], source: .disk, decoded: decoded, in: &s)
        case .stale, .miss:
            guard s.jobs[key]?.id == jobID else { return }
            s.jobs[key]?.diskChecked = true
            s.jobs[key]?.phase = .waiting
            if case .stale(let copy) = found { s.jobs[key]?.staleCopy = copy }
            // The pump let go of the job's rows while it read; on to the network.
            if let job = s.jobs[key] { _requeue(job, in: &s) }
        }
        _pump(in: &s)
    }

    /// On the network thread: a 304 for a stale copy becomes that copy's bytes, and so
    /// does a network failure or a 5xx when stale answers are allowed.
    func resolveWithDiskCopy(_ transfer: TransferID, _ response: DataResponse) -> (DataResponse, DownloadOrigin) {
        guard diskCache != nil else { return (response, .network) }
        if response.endsAtDCScans { return (response, .dcScans) }
        let copy = state.withLock { s in s.jobByTransfer[transfer].flatMap { s.jobs[$0]?.staleCopy } }
        guard let copy else { return (response, .network) }
        var resolved = response
        resolved.result = .success(copy.body)
        if response.httpStatus == 304 {
            return (resolved, .revalidated(copy.metadata.revalidated(by: response.cacheHeaders, now: HTTPCacheMetadata.now)))
        }
        switch response.result {
        case .failure(.network) where configuration.serveStaleOnError,
             .failure(.http(500...)) where configuration.serveStaleOnError:
            return (resolved, .stale)
        default:
            return (response, .network)
        }
    }

    /// Off the host's and network threads: keeps a fetched original (unless the
    /// response said no-store or `Vary: *`) and its thumbnail for this box.
    func storeOnDisk(_ key: CacheKey, bytes: [UInt8], image: DecodedImage?, origin: DownloadOrigin,
                     headers: HTTPCacheHeaders) {
        guard let diskCache else { return }
        let request = configuration.dataRequest(for: key.url)
        var metadata: HTTPCacheMetadata
        switch origin {
        case .network, .dcScans:
            guard HTTPCacheMetadata.allowsStoring(headers) else { return }
            metadata = HTTPCacheMetadata(headers: headers, now: HTTPCacheMetadata.now)
            metadata.selectingHeaders = HTTPCacheMetadata.selectingHeaders(vary: headers.vary, of: request)
        case .revalidated(let refreshed):
            metadata = refreshed
        case .stale:
            return
        }
        if origin != .dcScans { diskCache.store(DiskCache.Key(request: request), body: bytes, metadata: metadata) }
        if let image, storesThumbnails(key) {
            diskCache.store(DiskCache.Key(request: request, variant: DiskCacheThumbnail.variant(key.options)),
                            body: DiskCacheThumbnail.encode(image), metadata: metadata, durable: false)
        }
    }

    /// Pixels fitted into a box: at the original size the thumbnail would be the
    /// full decode, larger on disk than the file it came from.
    private func storesThumbnails(_ key: CacheKey) -> Bool {
        configuration.output == .pixels && key.options.target != .original
    }

    /// What this loader hands out for a file's bytes.
    private func makeImage(_ bytes: [UInt8], _ key: CacheKey, decoder: any ImageDecoding)
        -> Result<DecodedImage, LoaderError>
    {
        if configuration.output == .encoded {
            return ImageFormat(sniffing: bytes).map { .success(DecodedImage(encoded: bytes, codec: $0)) }
                ?? .failure(.unsupported)
        }
        do throws(LoaderError) {
            let image = try decoder.decode(bytes, options: key.options, limits: configuration.decodeLimits)
            attachAnimation(to: image, from: bytes)
            return .success(image)
        } catch {
            return .failure(error)
        }
    }

    // MARK: The host's calls

    /// Empties the disk cache, and the responses the session keeps for reuse. Blocks
    /// for the file deletions.
    public func clearDiskCache() throws(LoaderError) {
        guard !state.withLock({ $0.isShuttingDown }) else { throw .shutdown }
        transport.forgetRecentResponses(of: nil)
        diskCache?.removeAll()
    }

    /// Forgets `url`: its original and thumbnails on disk, its image in memory and a
    /// response the session keeps for reuse, so the next request downloads it.
    /// Blocks for the file deletions.
    public func removeFromDiskCache(url: ImageURL) throws(LoaderError) {
        let key = CacheKey(url: url, options: configuration.decodeOptions)
        try state.withLock { s throws(LoaderError) in
            guard !s.isShuttingDown else { throw .shutdown }
            s.cache.remove(key)
            _dropRemovedAnimations(in: &s)
        }
        transport.forgetRecentResponses(of: url)
        diskCache?.remove(group: url.bytes)
    }
}
