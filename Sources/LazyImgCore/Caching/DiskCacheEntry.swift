/// What the HTTP response said about caching a body, kept beside it on disk.
public struct HTTPCacheMetadata: Sendable, Equatable {
    public var etag: String?
    public var lastModified: String?
    /// Cache-Control max-age in seconds; nil when the response gave none.
    public var maxAgeSeconds: Int64?
    /// Cache-Control no-cache: revalidate before every use.
    public var noCache = false
    /// Wall-clock seconds (Unix time) when the response arrived or was last revalidated.
    public var storedAt: Int64 = 0
    /// The request's values of the header fields the response's Vary named, one
    /// "name: value" line each (`HTTPCachePolicy`); nil when it named none.
    public var selectingHeaders: String?

    public init(etag: String? = nil, lastModified: String? = nil, maxAgeSeconds: Int64? = nil,
                noCache: Bool = false, storedAt: Int64 = 0, selectingHeaders: String? = nil) {
        self.etag = etag
        self.lastModified = lastModified
        self.maxAgeSeconds = maxAgeSeconds
        self.noCache = noCache
        self.storedAt = storedAt
        self.selectingHeaders = selectingHeaders
    }
}

/// One disk cache file: a fixed header, the full key, the HTTP metadata, the body.
///
/// The file's length must be exactly what the header says, and a CRC-32 over every
/// byte but its own field must match, so a file cut short by a crash, or damaged on
/// disk, is recognised as such and never served.
///
///     0  "LZDC"             4  version (u16)  6  selecting headers length (u16)
///     8  key length (u32)  12  body length (u64)
///    20  storedAt (i64)    28  max-age (i64, -1 = none)
///    36  flags (u32: 1 = no-cache)
///    40  ETag length (u16) 42  Last-Modified length (u16)
///    44  CRC-32 of bytes 0..<44 and 48..<end
///    48  key, ETag, Last-Modified, selecting headers, body
/// All integers little-endian.
///
/// Version 2 (0.4.0) added the selecting headers and the credentials in the key
/// (`DiskCache.keyBytes`); version 1 files read as not ours.
struct DiskCacheEntry {
    static let magic: [UInt8] = Array("LZDC".utf8)
    static let version: UInt16 = 2
    static let headerSize = 48

    var key: [UInt8]
    var metadata: HTTPCacheMetadata
    var body: ArraySlice<UInt8>

    /// The whole file. Nil when a field does not fit its length field.
    static func encode(key: [UInt8], metadata: HTTPCacheMetadata, body: [UInt8]) -> [UInt8]? {
        let etag = Array((metadata.etag ?? "").utf8)
        let lastModified = Array((metadata.lastModified ?? "").utf8)
        let selecting = Array((metadata.selectingHeaders ?? "").utf8)
        guard key.count <= Int(UInt32.max), etag.count <= Int(UInt16.max),
              lastModified.count <= Int(UInt16.max), selecting.count <= Int(UInt16.max) else { return nil }
        var file: [UInt8] = []
        file.reserveCapacity(headerSize + key.count + etag.count + lastModified.count + selecting.count + body.count)
        file += magic
        append(&file, UInt64(version), bytes: 2)
        append(&file, UInt64(selecting.count), bytes: 2)
        append(&file, UInt64(key.count), bytes: 4)
        append(&file, UInt64(body.count), bytes: 8)
        append(&file, UInt64(bitPattern: metadata.storedAt), bytes: 8)
        append(&file, UInt64(bitPattern: metadata.maxAgeSeconds ?? -1), bytes: 8)
        append(&file, metadata.noCache ? 1 : 0, bytes: 4)
        append(&file, UInt64(etag.count), bytes: 2)
        append(&file, UInt64(lastModified.count), bytes: 2)
        append(&file, 0, bytes: 4)  // the checksum, filled in below
        file += key
        file += etag
        file += lastModified
        file += selecting
        file += body
        return withChecksum(file)
    }

    /// `file` (at least a header long) with its checksum field filled in.
    static func withChecksum(_ file: [UInt8]) -> [UInt8] {
        var file = file
        let crc = checksum(file)
        for i in 0..<4 { file[44 + i] = UInt8(truncatingIfNeeded: crc >> UInt32(8 * i)) }
        return file
    }

    /// Parses and verifies a whole file; nil when it is torn, damaged or not ours.
    init?(decoding file: [UInt8]) {
        guard file.count >= Self.headerSize, Array(file[0..<4]) == Self.magic,
              Self.read(file, 4, 2) == UInt64(Self.version)
        else { return nil }
        let keyLength = Self.read(file, 8, 4)
        let bodyLength = Self.read(file, 12, 8)
        let etagLength = Self.read(file, 40, 2)
        let lastModifiedLength = Self.read(file, 42, 2)
        let selectingLength = Self.read(file, 6, 2)
        // Each term is below 2^32 except the body length, so compare before adding it.
        let prefix = UInt64(Self.headerSize) + keyLength + etagLength + lastModifiedLength + selectingLength
        guard prefix <= UInt64(file.count), bodyLength == UInt64(file.count) - prefix,
              Self.read(file, 44, 4) == UInt64(Self.checksum(file))
        else { return nil }
        var offset = Self.headerSize
        func take(_ count: UInt64) -> ArraySlice<UInt8> {
            defer { offset += Int(count) }
            return file[offset..<offset + Int(count)]
        }
        key = Array(take(keyLength))
        let etag = take(etagLength)
        let lastModified = take(lastModifiedLength)
        let selecting = take(selectingLength)
        let maxAge = Int64(bitPattern: Self.read(file, 28, 8))
        metadata = HTTPCacheMetadata(
            etag: etag.isEmpty ? nil : String(decoding: etag, as: UTF8.self),
            lastModified: lastModified.isEmpty ? nil : String(decoding: lastModified, as: UTF8.self),
            maxAgeSeconds: maxAge < 0 ? nil : maxAge,
            noCache: Self.read(file, 36, 4) & 1 != 0,
            storedAt: Int64(bitPattern: Self.read(file, 20, 8)),
            selectingHeaders: selecting.isEmpty ? nil : String(decoding: selecting, as: UTF8.self))
        body = file[offset...]
    }

    private static func checksum(_ file: [UInt8]) -> UInt32 {
        file.withUnsafeBytes { all in
            CRC32.update(CRC32.update(0, UnsafeRawBufferPointer(rebasing: all[0..<44])),
                         UnsafeRawBufferPointer(rebasing: all[48...]))
        }
    }

    private static func append(_ file: inout [UInt8], _ value: UInt64, bytes: Int) {
        for i in 0..<bytes { file.append(UInt8(truncatingIfNeeded: value >> UInt64(8 * i))) }
    }

    private static func read(_ file: [UInt8], _ offset: Int, _ bytes: Int) -> UInt64 {
        var value: UInt64 = 0
        for i in 0..<bytes { value |= UInt64(file[offset + i]) << UInt64(8 * i) }
        return value
    }
}
