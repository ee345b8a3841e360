import CLazyImgHeader
import LazyImgCore

// Each export has one shape: check pointers, recover the loader, call the core, map
// a thrown LoaderError to its status. A `lazyimg_loader *` is an unmanaged
// ImageLoader; size_t arrives as UInt and is clamped, never trapped on.

/// Runs `body` on the loader, borrowed rather than retained: the host's reference
/// keeps it alive for the call (destroying it while another call runs is misuse the
/// header forbids), and a retain/release pair per call would cost more than a memory
/// hit, the loader's count living in a side table once a weak reference to it exists.
@inline(__always)
private func borrowLoader<Result>(_ pointer: OpaquePointer, _ body: (ImageLoader) -> Result) -> Result {
    Unmanaged<ImageLoader>.fromOpaque(UnsafeRawPointer(pointer))._withUnsafeGuaranteedRef(body)
}

/// The loader behind a pointer, unretained, for exports that hold it across calls
/// of their own (the disk cache calls).
func loader(_ pointer: OpaquePointer) -> ImageLoader {
    Unmanaged<ImageLoader>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue()
}

/// Runs `body` on the borrowed loader, mapping errors to statuses.
@inline(__always)
func withLoader(_ pointer: OpaquePointer?,
                        _ body: (ImageLoader) throws(LoaderError) -> lazyimg_status) -> lazyimg_status {
    guard let pointer else { return LAZYIMG_E_INVALID_ARGUMENT }
    return borrowLoader(pointer) { loader in
        do throws(LoaderError) {
            return try body(loader)
        } catch {
            return error.status
        }
    }
}

@_cdecl("lazyimg_loader_create")
public func lazyimg_loader_create(_ cfg: UnsafePointer<lazyimg_config>?,
                                  _ out: UnsafeMutablePointer<OpaquePointer?>?) -> lazyimg_status {
    guard let out else { return LAZYIMG_E_INVALID_ARGUMENT }
    out.pointee = nil
    do {
        let (configuration, callback) = try readConfig(cfg)
        let created = try ImageLoader(configuration: configuration) { event in
            deliver(event, to: callback)
        }
        out.pointee = OpaquePointer(Unmanaged.passRetained(created).toOpaque())
        return LAZYIMG_OK
    } catch {
        return error.status
    }
}

@_cdecl("lazyimg_loader_destroy")
public func lazyimg_loader_destroy(_ pointer: OpaquePointer?) -> lazyimg_status {
    guard let pointer else { return LAZYIMG_OK }
    let status = withLoader(pointer) { loader throws(LoaderError) in
        try loader.shutdown()
        return LAZYIMG_OK
    }
    guard status == LAZYIMG_OK else { return status }
    Unmanaged<ImageLoader>.fromOpaque(UnsafeRawPointer(pointer)).release()
    return LAZYIMG_OK
}

/// Copies a C array of C strings; NULL entries are rows without an image.
/// Their bytes are kept exactly: never repaired or normalised as Unicode text.
private func copyURLs(_ urls: UnsafePointer<UnsafePointer<CChar>?>?, _ count: UInt) throws(LoaderError) -> [ImageURL?] {
    guard count > 0 else { return [] }
    guard let urls, count <= UInt(Int.max / MemoryLayout<UnsafeRawPointer>.size) else { throw .invalidArgument }
    return UnsafeBufferPointer(start: urls, count: Int(count)).map { $0.map { ImageURL(cString: $0) } }
}

@_cdecl("lazyimg_set_items")
public func lazyimg_set_items(_ pointer: OpaquePointer?, _ urls: UnsafePointer<UnsafePointer<CChar>?>?,
                              _ count: UInt) -> lazyimg_status {
    withLoader(pointer) { loader throws(LoaderError) in
        try loader.setItems(try copyURLs(urls, count))
        return LAZYIMG_OK
    }
}

@_cdecl("lazyimg_append_items")
public func lazyimg_append_items(_ pointer: OpaquePointer?, _ urls: UnsafePointer<UnsafePointer<CChar>?>?,
                                 _ count: UInt) -> lazyimg_status {
    withLoader(pointer) { loader throws(LoaderError) in
        try loader.appendItems(try copyURLs(urls, count))
        return LAZYIMG_OK
    }
}

@_cdecl("lazyimg_item_count")
public func lazyimg_item_count(_ pointer: OpaquePointer?) -> UInt {
    pointer.map { borrowLoader($0) { UInt($0.itemCount) } } ?? 0
}

@_cdecl("lazyimg_set_visible_range")
public func lazyimg_set_visible_range(_ pointer: OpaquePointer?, _ first: UInt, _ count: UInt) -> lazyimg_status {
    withLoader(pointer) { loader throws(LoaderError) in
        #if LAZYIMG_FRAME_FLOOR && !LAZYIMG_FRAME_FLOOR_VIEWS
        loader.floorTouch(first)
        return LAZYIMG_OK
        #endif
        try loader.setVisibleRange(first: Int(clamping: first), count: Int(clamping: count))
        return LAZYIMG_OK
    }
}

@_cdecl("lazyimg_set_scroll_state")
public func lazyimg_set_scroll_state(_ pointer: OpaquePointer?, _ state: lazyimg_scroll_state,
                                     _ velocity: Double) -> lazyimg_status {
    withLoader(pointer) { loader throws(LoaderError) in
        let scroll: ScrollState
        switch state {
        case LAZYIMG_SCROLL_IDLE: scroll = .idle
        case LAZYIMG_SCROLL_DRAGGING: scroll = .dragging
        case LAZYIMG_SCROLL_DECELERATING: scroll = .decelerating
        default: throw .invalidArgument
        }
        guard !velocity.isNaN else { throw .invalidArgument }
        #if LAZYIMG_FRAME_FLOOR && !LAZYIMG_FRAME_FLOOR_VIEWS
        loader.floorTouch(UInt(velocity.bitPattern))
        return LAZYIMG_OK
        #endif
        try loader.setScrollState(scroll, velocity: velocity)
        return LAZYIMG_OK
    }
}

@_cdecl("lazyimg_request")
public func lazyimg_request(_ pointer: OpaquePointer?, _ row: UInt,
                            _ outImage: UnsafeMutablePointer<OpaquePointer?>?,
                            _ outTicket: UnsafeMutablePointer<UInt64>?) -> lazyimg_status {
    guard let outImage, let outTicket else { return LAZYIMG_E_INVALID_ARGUMENT }
    outImage.pointee = nil
    outTicket.pointee = 0
    #if LAZYIMG_FRAME_FLOOR
    if let pointer {
        outTicket.pointee = borrowLoader(pointer) { $0.floorTicket() }
        return LAZYIMG_PENDING
    }
    #endif
    if let pointer {
        var ticket: UInt64 = 0
        var deferred = false
        var placeholder = false
        let status = borrowLoader(pointer) { loader -> lazyimg_status? in
            if let image = loader.requestUnlessFailing(row: Int(clamping: row), ticket: &ticket, deferred: &deferred,
                                                       placeholder: &placeholder) {
                outImage.pointee = imagePointer(passRetained: image)
                return LAZYIMG_OK
            }
            guard ticket != 0 else { return nil }
            return answer(loader, row: row, deferred ? .deferred(ticket) : .pending(ticket), outImage, outTicket,
                          placeholder: placeholder)
        }
        if let status { return status }
    }
    // The error's status, which the call above left to this one.
    return withLoader(pointer) { loader throws(LoaderError) in
        answer(loader, row: row, try loader.request(row: Int(clamping: row)), outImage, outTicket)
    }
}

/// A request's answer in the C call's out-parameters and status. `placeholder`
/// false: the miss knows its row has none.
@inline(__always)
private func answer(_ loader: ImageLoader, row: UInt, _ result: ImageLoader.RequestResult,
                    _ outImage: UnsafeMutablePointer<OpaquePointer?>,
                    _ outTicket: UnsafeMutablePointer<UInt64>, placeholder: Bool = true) -> lazyimg_status {
    func withPlaceholder(_ status: lazyimg_status) -> lazyimg_status {
        guard placeholder else { return status }
        return placeholderAnswer(loader, row: Int(clamping: row), outImage) ?? status
    }
    switch result {
    case .image(let image):
        outImage.pointee = imagePointer(passRetained: image)
        return LAZYIMG_OK
    case .pending(let ticket):
        outTicket.pointee = ticket
        return withPlaceholder(LAZYIMG_PENDING)
    case .deferred(let ticket):
        outTicket.pointee = ticket
        return withPlaceholder(LAZYIMG_DEFERRED)
    }
}

/// The shape of the lookups: `find` the image on the loader; OK with it in `out` as a
/// +1 reference, or MISS.
func answerLookup(_ pointer: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?,
                  _ find: (ImageLoader) throws(LoaderError) -> DecodedImage?) -> lazyimg_status {
    guard let out else { return LAZYIMG_E_INVALID_ARGUMENT }
    out.pointee = nil
    return withLoader(pointer) { loader throws(LoaderError) in
        guard let image = try find(loader) else { return LAZYIMG_MISS }
        out.pointee = imagePointer(passRetained: image)
        return LAZYIMG_OK
    }
}

@_cdecl("lazyimg_lookup")
public func lazyimg_lookup(_ pointer: OpaquePointer?, _ row: UInt,
                           _ out: UnsafeMutablePointer<OpaquePointer?>?) -> lazyimg_status {
    answerLookup(pointer, out) { loader throws(LoaderError) in try loader.lookup(row: Int(clamping: row)) }
}

@_cdecl("lazyimg_lookup_url")
public func lazyimg_lookup_url(_ pointer: OpaquePointer?, _ url: UnsafePointer<CChar>?,
                               _ out: UnsafeMutablePointer<OpaquePointer?>?) -> lazyimg_status {
    answerLookup(pointer, out) { loader throws(LoaderError) in
        guard let url else { throw .invalidArgument }
        return try loader.lookup(url: ImageURL(cString: url))
    }
}

@_cdecl("lazyimg_cancel")
public func lazyimg_cancel(_ pointer: OpaquePointer?, _ ticket: UInt64) -> lazyimg_status {
    withLoader(pointer) { loader throws(LoaderError) in
        try loader.cancel(ticket: ticket) ? LAZYIMG_OK : LAZYIMG_MISS
    }
}

@_cdecl("lazyimg_event_fd")
public func lazyimg_event_fd(_ pointer: OpaquePointer?) -> Int32 {
    pointer.map { borrowLoader($0) { $0.eventFD } } ?? -1
}

@_cdecl("lazyimg_dispatch")
public func lazyimg_dispatch(_ pointer: OpaquePointer?, _ max: UInt) -> UInt {
    pointer.map { borrowLoader($0) { UInt($0.dispatch(max: Int(clamping: max))) } } ?? 0
}

@_cdecl("lazyimg_wait")
public func lazyimg_wait(_ pointer: OpaquePointer?, _ timeoutMilliseconds: Int32) -> lazyimg_status {
    withLoader(pointer) { loader throws(LoaderError) in
        try loader.waitForEvents(milliseconds: Int(timeoutMilliseconds)) ? LAZYIMG_OK : LAZYIMG_TIMEOUT
    }
}

@_cdecl("lazyimg_get_stats")
public func lazyimg_get_stats(_ pointer: OpaquePointer?, _ out: UnsafeMutablePointer<lazyimg_stats>?) -> lazyimg_status {
    guard let out else { return LAZYIMG_E_INVALID_ARGUMENT }
    // Only the first field is known to exist in every version.
    let callerSize = Int(UnsafeRawPointer(out).load(as: UInt32.self))
    guard StructVersions.isAcceptedStatsSize(callerSize) else { return LAZYIMG_E_INVALID_ARGUMENT }
    let size = min(callerSize, MemoryLayout<lazyimg_stats>.size)
    return withLoader(pointer) { loader in
        let s = loader.stats
        var c = lazyimg_stats()
        c.struct_size = UInt32(size)
        c.requests = s.requests
        c.memory_hits = s.memoryHits
        c.downloads_started = s.downloadsStarted
        c.downloads_coalesced = s.downloadsCoalesced
        c.downloads_cancelled = s.downloadsCancelled
        c.downloads_failed = s.downloadsFailed
        c.deferred = s.deferred
        c.bytes_downloaded = s.bytesDownloaded
        c.images_decoded = s.imagesDecoded
        c.events_delivered = s.eventsDelivered
        c.memory_cache_bytes = s.memoryCacheBytes
        c.memory_cache_count = s.memoryCacheCount
        c.in_flight = s.inFlight
        c.prefetch_hits = s.prefetchHits
        c.prefetch_wasted = s.prefetchWasted
        c.prefetch_waste_bytes = s.prefetchWasteBytes
        c.downloads_retried = s.downloadsRetried
        c.disk_hits = s.diskHits
        c.disk_revalidations = s.diskRevalidations
        c.disk_cache_bytes = s.diskBytes
        c.disk_cache_count = s.diskEntries
        c.disk_evictions = s.diskEvictions
        c.disk_write_errors = s.diskWriteErrors
        c.decodes_skipped = s.decodesSkipped
        c.frames_decoded = s.framesDecoded
        c.animation_bytes = s.animationBytes
        c.bytes_resumed = s.bytesResumed
        withUnsafeBytes(of: &c) { bytes in
            UnsafeMutableRawBufferPointer(start: out, count: size).copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes.prefix(size)))
        }
        return LAZYIMG_OK
    }
}

@_cdecl("lazyimg_trim_memory")
public func lazyimg_trim_memory(_ pointer: OpaquePointer?, _ level: Int32) {
    guard let pointer else { return }
    switch level {
    case LAZYIMG_TRIM_MODERATE: borrowLoader(pointer) { $0.trimMemory(.moderate) }
    case LAZYIMG_TRIM_COMPLETE: borrowLoader(pointer) { $0.trimMemory(.complete) }
    default: break
    }
}
