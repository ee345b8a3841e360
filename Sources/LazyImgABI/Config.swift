import CLazyImgHeader
import CLazyImgSupport
import Glibc
import LazyImgCore

/// The core's defaults are the C defaults: one place says what they are.
private let defaults = LoaderConfiguration()

@_cdecl("lazyimg_config_init")
public func lazyimg_config_init(_ cfg: UnsafeMutablePointer<lazyimg_config>?) {
    guard let cfg else { return }
    var c = lazyimg_config()
    c.struct_size = UInt32(MemoryLayout<lazyimg_config>.size)
    c.delivery = LAZYIMG_DELIVERY_HOST
    c.memory_cache_bytes = UInt64(defaults.memoryCacheBytes)
    c.max_concurrent_downloads = UInt32(defaults.maxConcurrentDownloads)
    c.prefetch_rows = -1
    c.timeout_ms = UInt32(defaults.timeoutMilliseconds)
    c.max_response_bytes = UInt64(defaults.maxResponseBytes)
    c.max_pixels = UInt64(defaults.maxPixels)
    c.retry_after_ms = UInt32(defaults.retryAfterMilliseconds)
    c.fit = LAZYIMG_FIT_INSIDE
    c.pixel_format = LAZYIMG_PIXEL_RGBA8
    c.output = LAZYIMG_OUTPUT_PIXELS
    c.slow_scroll_rows_per_second = defaults.slowScrollRowsPerSecond
    c.prefetch_waste_bytes = UInt64(defaults.prefetchWasteBytes)
    c.max_host_connections = UInt32(defaults.maxHostConnections)
    c.decode_queue_bytes = UInt64(defaults.decodeQueueBytes)
    c.disk_cache_bytes = UInt64(defaults.diskCacheBytes)
    c.disk_cache_serve_stale = defaults.serveStaleOnError ? 1 : 0
    c.max_decode_bytes = UInt64(defaults.maxDecodeBytes)
    c.fetch_first_pass_only = defaults.fetchesFirstPassOnly ? 1 : 0
    c.preview_interval_ms = UInt32(defaults.previewIntervalMilliseconds)
    cfg.pointee = c
}

/// The host's callback and its user data, carried into the core's event handler.
struct EventCallback: @unchecked Sendable {
    // The host promises its callback may run on the thread its delivery mode names.
    let function: lazyimg_event_fn?
    let userData: UnsafeMutableRawPointer?
}

/// Reads a caller's config of any version: min(struct_size, ours) bytes over our
/// defaults, then checks and converts every field.
func readConfig(_ cfg: UnsafePointer<lazyimg_config>?) throws(LoaderError)
    -> (LoaderConfiguration, EventCallback)
{
    lazyimg_create_error_set(nil)
    var c = lazyimg_config()
    lazyimg_config_init(&c)
    if let cfg {
        // Only the first field is known to exist in every version.
        let size = Int(UnsafeRawPointer(cfg).load(as: UInt32.self))
        guard StructVersions.isAcceptedConfigSize(size) else { throw .invalidArgument }
        withUnsafeMutableBytes(of: &c) { ours in
            ours.copyMemory(from: UnsafeRawBufferPointer(start: cfg, count: min(size, ours.count)))
        }
    }
    var config = LoaderConfiguration()
    switch c.delivery {
    case LAZYIMG_DELIVERY_HOST: config.delivery = .host
    case LAZYIMG_DELIVERY_THREAD: config.delivery = .thread
    default: throw .invalidArgument
    }
    config.target = TargetSize(width: Int(c.target_width), height: Int(c.target_height))
    switch c.fit {
    case LAZYIMG_FIT_INSIDE: config.fit = .fit
    case LAZYIMG_FIT_FILL: config.fit = .fill
    default: throw .invalidArgument
    }
    switch c.pixel_format {
    case LAZYIMG_PIXEL_RGBA8: config.pixelFormat = .rgba8
    case LAZYIMG_PIXEL_BGRA8_PREMULTIPLIED: config.pixelFormat = .bgra8Premultiplied
    default: throw .invalidArgument
    }
    switch c.output {
    case LAZYIMG_OUTPUT_PIXELS: config.output = .pixels
    case LAZYIMG_OUTPUT_ENCODED: config.output = .encoded
    default: throw .invalidArgument
    }
    config.memoryCacheBytes = Int(clamping: c.memory_cache_bytes)
    config.animationBufferBytes = Int(clamping: c.animation_buffer_bytes)
    guard c.max_concurrent_downloads <= 64 else { throw .invalidArgument }
    config.maxConcurrentDownloads = c.max_concurrent_downloads == 0 ? defaults.maxConcurrentDownloads
        : Int(c.max_concurrent_downloads)
    guard c.max_host_connections <= 64 else { throw .invalidArgument }
    config.maxHostConnections = c.max_host_connections == 0 ? defaults.maxHostConnections
        : Int(c.max_host_connections)
    guard c.prefetch_rows >= -1 else { throw .invalidArgument }
    config.prefetchRows = c.prefetch_rows == -1 ? nil : Int(c.prefetch_rows)
    config.timeoutMilliseconds = c.timeout_ms == 0 ? defaults.timeoutMilliseconds : Int(c.timeout_ms)
    config.maxResponseBytes = c.max_response_bytes == 0 ? defaults.maxResponseBytes
        : Int(clamping: min(c.max_response_bytes, UInt64(LoaderConfiguration.maxResponseBytesCap)))
    config.maxPixels = c.max_pixels == 0 ? defaults.maxPixels : Int(clamping: c.max_pixels)
    config.maxDecodeBytes = c.max_decode_bytes == 0 ? defaults.maxDecodeBytes : Int(clamping: c.max_decode_bytes)
    guard c.allow_file_urls == 0 || c.allow_file_urls == 1 else { throw .invalidArgument }
    config.allowFileURLs = c.allow_file_urls == 1
    config.decodeQueueBytes = c.decode_queue_bytes == 0 ? defaults.decodeQueueBytes
        : Int(clamping: c.decode_queue_bytes)
    config.retryAfterMilliseconds = c.retry_after_ms == 0 ? defaults.retryAfterMilliseconds : Int(c.retry_after_ms)
    guard c.slow_scroll_rows_per_second.isFinite, c.slow_scroll_rows_per_second >= 0 else { throw .invalidArgument }
    config.slowScrollRowsPerSecond = c.slow_scroll_rows_per_second
    config.prefetchWasteBytes = c.prefetch_waste_bytes == 0 ? defaults.prefetchWasteBytes
        : Int(clamping: c.prefetch_waste_bytes)
    config.userAgent = "lazyimg/" + String(cString: lazyimg_version_string())
    if let agent = c.user_agent {
        config.userAgent = String(cString: agent)
        guard isHeaderSafe(config.userAgent) else { throw .invalidArgument }
    }
    if var line = c.http_headers {
        while let header = line.pointee {
            let text = String(cString: header)
            guard config.httpHeaders.count < 256, isHeaderSafe(text), DataRequest.isCustomHeader(text)
            else { throw .invalidArgument }
            config.httpHeaders.append(text)
            line += 1
        }
    }
    config.networkPolicy = try readNetworkPolicy(c)
    config.diskCacheDirectory = c.disk_cache_dir.map { String(cString: $0) }
    config.diskCacheBytes = c.disk_cache_bytes == 0 ? defaults.diskCacheBytes : Int(clamping: c.disk_cache_bytes)
    config.serveStaleOnError = c.disk_cache_serve_stale != 0
    config.fetchesFirstPassOnly = c.fetch_first_pass_only != 0
    config.previewIntervalMilliseconds = Int(c.preview_interval_ms)
    config.session = c.session.map { Unmanaged<ImageSession>.fromOpaque(UnsafeRawPointer($0)).takeUnretainedValue() }
    return (config, EventCallback(function: c.on_event, userData: c.user_data))
}

/// One header line, of sane length.
private func isHeaderSafe(_ text: String) -> Bool {
    DataRequest.isSingleHeaderLine(text) && text.utf8.count <= 8192
}
