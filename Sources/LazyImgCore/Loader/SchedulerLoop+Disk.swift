/// The disk cache between memory and the network: looked in once per job on a worker
/// before any download, written after a download's tickets are answered.
///
/// For each URL it keeps the original bytes with their HTTP metadata, and the
/// thumbnail for every box a loader used, so a warm start neither downloads nor
/// decodes. A stale original is revalidated by the download (If-None-Match /
/// If-Modified-Since); a 304 makes it fresh again without a body. Entries are
/// filed under this loader's credentials (`DataRequest.credentialScope`) and
/// answer only requests its response's Vary selects.
extension SchedulerLoop {
    /// Sends the job to a worker to look on disk; its answer comes back as an input.
    func queueDiskRead(job: UInt64, key: CacheKey, priority: Int) {
        guard let diskCache else { return }
        // Refused only once shutdown began, which has ended every ticket already.
        workers.submit(priority: priority) { [weak self] decoder in
            guard let self else { return }
            post(work: .diskRead(job: job, key: key, lookUpOnDisk(diskCache, key, decoder: decoder)))
        }
    }

    /// On a worker: the thumbnail for this box if fresh, else the original decoded
    /// (and its thumbnail written for next time).
    private func lookUpOnDisk(_ disk: DiskCache, _ key: CacheKey, decoder: any ImageDecoding) -> DiskLookup {
        let now = HTTPCacheMetadata.now
        let request = configuration.dataRequest(for: key.url)
        let thumbnailKey = DiskCache.Key(request: request, variant: DiskCacheThumbnail.variant(key.options))
        // An animation's thumbnail holds its first frame only: one that plays needs
        // the original.
        if storesThumbnails(key), let thumbnail = disk.read(thumbnailKey), thumbnail.metadata.isFresh(now: now),
           thumbnail.metadata.isSelected(by: request), let image = DiskCacheThumbnail.decode(thumbnail.body),
           !(image.isAnimated && configuration.playsAnimations) {
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

    /// On a worker, after the tickets were answered: keeps a fetched original (unless
    /// the response said no-store or `Vary: *`) and its thumbnail for this box.
    func storeOnDisk(_ key: CacheKey, bytes: [UInt8], image: DecodedImage?, origin: DownloadOrigin,
                     headers: HTTPCacheHeaders) {
        guard let diskCache else { return }
        let request = configuration.dataRequest(for: key.url)
        var metadata: HTTPCacheMetadata
        switch origin {
        case .network, .firstPass:
            guard HTTPCacheMetadata.allowsStoring(headers) else { return }
            metadata = HTTPCacheMetadata(headers: headers, now: HTTPCacheMetadata.now)
            metadata.selectingHeaders = HTTPCacheMetadata.selectingHeaders(vary: headers.vary, of: request)
        case .revalidated(let refreshed):
            metadata = refreshed
        case .stale:
            return
        }
        if origin != .firstPass { diskCache.store(DiskCache.Key(request: request), body: bytes, metadata: metadata) }
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
}
