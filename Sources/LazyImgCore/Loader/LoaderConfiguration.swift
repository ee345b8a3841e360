/// Everything a loader is created with. The ABI layer fills it from `lazyimg_config`.
public struct LoaderConfiguration: Sendable {
    public var delivery: DeliveryMode = .host
    /// Images are fitted into this box; `.original` keeps the file's size.
    public var target: TargetSize = .original
    public var memoryCacheBytes = 64 << 20
    public var maxConcurrentDownloads = 6
    /// Rows past the visible range to prefetch; nil = one screen (the visible count).
    public var prefetchRows: Int? = nil
    public var timeoutMilliseconds = 15_000
    public var maxResponseBytes = 32 << 20
    public var maxPixels = 50_000_000
    public var userAgent = "lazyimg"
    /// "Name: value" lines sent with every request.
    public var httpHeaders: [String] = []
    /// How long a failed URL answers with its error before it is tried again.
    public var retryAfterMilliseconds = 2_000
    /// Decode threads: one per core, at most four, at least one.
    public var decodeThreads = LoaderConfiguration.defaultDecodeThreads

    public init() {}

    public static var defaultDecodeThreads: Int {
        max(1, min(4, Int(sysconfCores())))
    }
}

import Glibc

private func sysconfCores() -> Int {
    sysconf(Int32(_SC_NPROCESSORS_ONLN))
}
