import Glibc
@_spi(Fuzzing) import LazyImgCore

/// The disk cache's parsers on bytes under test, in a directory of the harness's own
/// (in /dev/shm when there is one, so that a run costs no disk I/O), removed at exit.
///
/// `entry`: the bytes as an entry file, their checksum made to match: parsed, judged
/// fresh or stale and selected or not by a request, decoded as a thumbnail, and read
/// through the cache from the file itself. `journal`: the bytes as what another
/// process wrote into the shared journal, either appended to it as records (first
/// byte even) or as the whole file (odd), replayed by a cache that then writes and
/// reads an entry. Each journal run starts from a fresh journal and cache, so a
/// crash reproduces from its input alone.
enum DiskCacheHarness {
    private static let limit = 1 << 20
    private static let entryKey = DiskCache.Key(group: "http://fuzz.test/entry")
    private static let ownKey = DiskCache.Key(group: "http://fuzz.test/own")
    /// A request with the fields Vary may name.
    private static let request = DataRequest(url: ImageURL("http://fuzz.test/entry"), userAgent: "lazyimg-fuzz",
                                             headers: ["Accept-Language: de", "Authorization: Bearer x"])

    /// Made on first use, with `entryKey` stored once so that its shard exists.
    private static let directory: String = {
        var template = Array(((access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp") + "/lazyimg-fuzz-XXXXXX").utf8CString)
        guard mkdtemp(&template) != nil else { fatalError("mkdtemp failed") }
        let path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let cache = try? DiskCache(directory: path, limit: limit),
              cache.store(entryKey, body: [1], metadata: HTTPCacheMetadata())
        else { fatalError("the harness's cache cannot be written") }
        atexit { DiskCacheHarness.removeDirectory() }
        return path
    }()

    /// One cache for every entry run, indexed once: a damaged entry then costs the
    /// journal replay its removal takes, not a rescan of the directory.
    private static let entryCache: DiskCache = {
        guard let cache = try? DiskCache(directory: directory, limit: limit) else { fatalError("no cache") }
        cache.loadIndex()
        return cache
    }()

    static func entry(_ bytes: [UInt8]) {
        let sealed = DiskCache.withMatchingChecksum(bytes)
        _ = DiskCache.parseEntry(bytes)
        if let (_, metadata, body) = DiskCache.parseEntry(sealed) {
            _ = metadata.isFresh(now: HTTPCacheMetadata.now)
            _ = metadata.isSelected(by: request)
            _ = metadata.validatorHeaders
            _ = DiskCache.decodeThumbnail(body)
        }
        write(entryCache.path(of: entryKey), sealed, truncating: true)
        _ = entryCache.read(entryKey)
    }

    static func journal(_ bytes: [UInt8]) {
        let path = directory + "/journal"
        unlink(path)
        guard let cache = try? DiskCache(directory: directory, limit: limit) else { fatalError("no cache") }
        cache.loadIndex()
        let records = Array(bytes.dropFirst())
        if (bytes.first ?? 0) % 2 == 0 { write(path, records, truncating: false) } else { write(path, records, truncating: true) }
        cache.loadIndex()
        _ = cache.store(ownKey, body: [UInt8](repeating: 7, count: 5_000), metadata: HTTPCacheMetadata())
        _ = cache.read(ownKey)
        _ = cache.statistics
        cache.remove(group: entryKey.group)
    }

    private static func write(_ path: String, _ bytes: [UInt8], truncating: Bool) {
        let fd = open(path, O_WRONLY | O_CREAT | (truncating ? O_TRUNC : O_APPEND), 0o600)
        guard fd >= 0 else { return }
        defer { close(fd) }
        _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
    }

    /// The cache's own files, its shard directories (all 256 names), the directory.
    private static func removeDirectory() {
        if let cache = try? DiskCache(directory: directory, limit: limit) { cache.removeAll() }
        for name in ["lock", "journal"] { unlink("\(directory)/\(name)") }
        for shard in 0..<256 { rmdir("\(directory)/\(shard < 16 ? "0" : "")\(String(shard, radix: 16))") }
        rmdir(directory)
    }
}
