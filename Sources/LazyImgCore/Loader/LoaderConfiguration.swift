import Glibc

/// Everything a loader is created with. The ABI layer fills it from `lazyimg_config`.
public struct LoaderConfiguration: Sendable {
    public var delivery: DeliveryMode = .host
    /// Images are fitted into this box; `.original` keeps the file's size.
    public var target: TargetSize = .original
    /// Inside the box, or covering it and cropped to exactly the box.
    public var fit: FitMode = .fit
    public var pixelFormat: PixelFormat = .rgba8
    /// Decoded pixels, or the encoded file as downloaded (for hosts with their own
    /// decoder, or a terminal protocol that takes PNG).
    public var output: ImageOutput = .pixels
    public var memoryCacheBytes = 64 << 20
    /// Decoded frames one animation may keep ahead of the one shown; 0 = animations
    /// are not played, images are first frames (and no file bytes are kept).
    public var animationBufferBytes = 0
    /// Downloads at once: a screenful (10+ rows) plus the rows ahead start in one round.
    public var maxConcurrentDownloads = 16
    /// Connections to one host at once (HTTP/1.1), and downloads to one host at once
    /// (any protocol; HTTP/2 servers take them on one connection as streams): rows
    /// past it wait without a download slot, which stays free for other hosts.
    public var maxHostConnections = 10
    /// Rows past the visible range to prefetch; nil = the rows travelled in half a
    /// second at the slow-scroll speed (half a screen by default).
    public var prefetchRows: Int? = nil
    public var timeoutMilliseconds = 15_000
    public var maxResponseBytes = 32 << 20
    /// The largest `maxResponseBytes` a C config may ask for; larger values are
    /// clamped to it, so "no limit" (UINT64_MAX) still bounds one body in memory.
    public static let maxResponseBytesCap = 1 << 30
    public var maxPixels = 50_000_000
    /// What one decode may hold besides its result (`DecodeLimits.maxWorkingBytes`).
    public var maxDecodeBytes = DecodeLimits.defaultMaxWorkingBytes
    public var userAgent = "lazyimg"
    /// "Name: value" lines sent with every request.
    public var httpHeaders: [String] = []
    /// Proxy, trusted authorities and the origins `httpHeaders` go to.
    public var networkPolicy = NetworkPolicy()
    /// Whether file:// URLs load (regular files only, read off the network thread).
    /// Off by default: a feed's URL must not read the host's disk.
    public var allowFileURLs = false
    /// How long a failed URL answers with its error before it is tried again.
    public var retryAfterMilliseconds = 2_000
    /// Below this speed a moving list loads as if at rest; 0 = one screen (the
    /// visible row count) per second.
    public var slowScrollRowsPerSecond: Double = 0
    /// Prefetching pauses while prefetched images not yet shown hold this many bytes:
    /// a few screens of typical 50-300 KB photos, so waste stays bounded after a
    /// reversal or a jump.
    public var prefetchWasteBytes = 4 << 20
    /// Which failed downloads are tried again, and when.
    public var retryPolicy = RetryPolicy()
    /// When repeated failures pause a host, and for how long.
    public var hostBackoff = HostBackoff()
    /// Decode threads: one per core, at most four, at least one.
    public var decodeThreads = LoaderConfiguration.defaultDecodeThreads
    /// Downloaded bytes that may wait for (or be in) a decode before no further
    /// download starts: the memory budget between the network and the decode pool.
    /// Running downloads count in it too, and pause while it is spent
    /// (`DownloadBudget`).
    public var decodeQueueBytes = 64 << 20
    /// Where originals and thumbnails persist between runs; nil = no disk cache.
    public var diskCacheDirectory: String? = nil
    /// The disk cache's size limit in bytes.
    public var diskCacheBytes = 256 << 20
    /// When the network fails (or the server answers 5xx), answer with a stale disk
    /// copy instead of the error.
    public var serveStaleOnError = true
    /// A box that a progressive JPEG fills from DCT scale 1/8, or an interlaced PNG's
    /// first Adam7 pass covers, gets only the file's start, up to its DC scans or that
    /// pass, when the server serves byte ranges (`FirstPass`); false fetches every
    /// file whole.
    public var fetchesFirstPassOnly = true
    /// 0: no previews. Else a progressive JPEG downloading for a visible row (or one
    /// of the landing zone) gives a preview event, its scans so far at the box, at
    /// most this often (`Scheduler+Previews`).
    public var previewIntervalMilliseconds = 0
    /// Shared network, download table, disk cache and memory budget; nil = the
    /// loader's own. With a session, its disk cache replaces `diskCacheDirectory`,
    /// and `memoryCacheBytes` still limits this loader within the session's budget.
    public var session: ImageSession? = nil

    public init() {}

    /// What each decode may cost.
    public var decodeLimits: DecodeLimits {
        DecodeLimits(maxPixels: maxPixels, maxWorkingBytes: maxDecodeBytes)
    }

    /// While the list flies, the CANCELLED events the scheduler decides (rows
    /// that left the window) wait about this long after the first, or until the
    /// list settles or `SchedulerLoop.maxHeldCancellations` wait, and are then
    /// queued together. A fling cancels a row or two a frame: queued at once,
    /// nearly every moving frame's dispatch ran the event path cold for them,
    /// where a batch a few frames apart runs it once (docs/performance.md, "Held
    /// cancellations"). Not the host's to set (no C field): its tests lengthen it
    /// to see each other trigger alone.
    var cancellationHoldMilliseconds: Int64 = 100

    /// How every image of this loader is decoded; part of each cache key.
    public var decodeOptions: DecodeOptions {
        DecodeOptions(target: target, fit: fit, format: pixelFormat)
    }

    public static var defaultDecodeThreads: Int {
        max(1, min(4, sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }
}

/// What a loader hands out.
public enum ImageOutput: Sendable, Equatable {
    case pixels
    case encoded
}
