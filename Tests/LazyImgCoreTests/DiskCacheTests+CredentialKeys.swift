#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_1 // ThreadSanitizer group 1 (see the Makefile's tsan)
import Glibc
import TestSupport
import XCTest
@testable import LazyImgCore

/// What a disk entry is filed under: the URL and the credentials of the request
/// that fetched it; the directory's format, and what happens to one of an older
/// format. (An extension: see DiskCacheTests+HTTPPolicy.swift on ThreadSanitizer's
/// test listing.)
extension DiskCacheTests {
    private static let keyedURL = "http://x.test/a.jpg"

    private func request(_ headers: [String], origins: Set<String>? = nil) -> DataRequest {
        var policy = NetworkPolicy()
        policy.headerOrigins = origins.map { Set($0.compactMap { Origin(configured: $0) }) }
        return DataRequest(url: ImageURL(Self.keyedURL), headers: headers, policy: policy)
    }

    func testTheCredentialScopeSeparatesEveryDifferenceInHeadersOrWhereTheyGo() {
        XCTAssertEqual(request([]).credentialScope, [], "no headers: no credentials")
        XCTAssertEqual(request(["Authorization: Bearer A"], origins: []).credentialScope, [], "headers sent nowhere")
        let scopes = [
            request(["Authorization: Bearer A"]), request(["Authorization: Bearer B"]),
            request(["Cookie: a=1"]), request(["X-Token: 1", "X-Other: 2"]), request(["X-Other: 2", "X-Token: 1"]),
            request(["Authorization: Bearer A"], origins: ["https://cdn.test"]),
            request(["Authorization: Bearer A"], origins: ["https://cdn.test", "https://img.test"]),
        ].map(\.credentialScope)
        XCTAssertEqual(Set(scopes).count, scopes.count, "all different")
        XCTAssertTrue(scopes.allSatisfy { $0.count == 32 })
        XCTAssertEqual(request(["Authorization: Bearer A"]).credentialScope, scopes[0], "the same: the same")
        XCTAssertEqual(request(["X"], origins: ["https://img.test", "https://cdn.test"]).credentialScope,
                       request(["X"], origins: ["https://cdn.test", "https://img.test"]).credentialScope,
                       "a set of origins, in any order")
        XCTAssertNotEqual(DiskCache.fileName(DiskCache.Key(request: request(["A: 1"]))),
                          DiskCache.fileName(DiskCache.Key(request: request([]))))
    }

    func testAURLsEntriesOfEveryCredentialAreRemovedTogether() throws {
        let cache = try DiskCache(directory: directory.path, limit: 1 << 20)
        let requests = [request([]), request(["Authorization: Bearer A"]), request(["Authorization: Bearer B"])]
        for (i, request) in requests.enumerated() {
            XCTAssertTrue(cache.store(DiskCache.Key(request: request), body: [UInt8(i)], metadata: HTTPCacheMetadata()))
            XCTAssertTrue(cache.store(DiskCache.Key(request: request, variant: "thumb"), body: [9], metadata: HTTPCacheMetadata()))
        }
        for (i, request) in requests.enumerated() {
            XCTAssertEqual(cache.read(DiskCache.Key(request: request))?.body, [UInt8(i)], "each its own")
        }
        cache.remove(group: ImageURL(Self.keyedURL).bytes)
        for request in requests { XCTAssertNil(cache.read(DiskCache.Key(request: request))) }
        XCTAssertEqual(cache.statistics.entries, 0)
    }

    func testTheSelectingHeadersAreTheRequestsValuesOfWhatVaryNames() {
        var asked = request(["Accept-Language: de", "X-Token: 1"])
        asked.userAgent = "agent/1"
        XCTAssertNil(HTTPCacheMetadata.selectingHeaders(vary: nil, of: asked))
        XCTAssertNil(HTTPCacheMetadata.selectingHeaders(vary: " , ", of: asked))
        let lines = HTTPCacheMetadata.selectingHeaders(vary: "User-Agent, accept-language,Accept", of: asked)
        XCTAssertEqual(lines, "accept: \naccept-language: de\nuser-agent: agent/1\n")
        let metadata = HTTPCacheMetadata(selectingHeaders: lines)
        XCTAssertTrue(metadata.isSelected(by: asked))
        var other = asked
        other.userAgent = "agent/2"
        XCTAssertFalse(metadata.isSelected(by: other))
        XCTAssertFalse(HTTPCacheMetadata.allowsStoring(HTTPCacheHeaders(vary: "Accept, *")))
        XCTAssertTrue(HTTPCacheMetadata.allowsStoring(HTTPCacheHeaders(vary: "Accept")))
    }

    /// An entry as 0.3 wrote it: format 1, the key without credentials, named by the
    /// digest of the variant alone.
    private func writeFormat1Entry(group: String, body: [UInt8], under name: String? = nil) throws {
        let groupBytes = Array(group.utf8)
        let key = (0..<4).map { UInt8(truncatingIfNeeded: UInt32(groupBytes.count) >> UInt32(8 * $0)) } + groupBytes
        var file = try XCTUnwrap(DiskCacheEntry.encode(key: key, metadata: HTTPCacheMetadata(), body: body))
        file[4] = 1
        let crc = file.withUnsafeBytes { all in
            CRC32.update(CRC32.update(0, UnsafeRawBufferPointer(rebasing: all[0..<44])),
                         UnsafeRawBufferPointer(rebasing: all[48...]))
        }
        for i in 0..<4 { file[44 + i] = UInt8(truncatingIfNeeded: crc >> UInt32(8 * i)) }
        let fileName = name ?? (hex(SHA256.digest(groupBytes).prefix(16)) + "-" + hex(SHA256.digest([UInt8]()).prefix(8)))
        let shard = "\(directory.path)/\(fileName.prefix(2))"
        mkdir(shard, 0o700)
        let fd = Glibc.open("\(shard)/\(fileName)", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        XCTAssertTrue(DiskCacheFiles.writeAll(fd, file))
        close(fd)
    }

    private func hex(_ bytes: some Collection<UInt8>) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }

    private func entryFiles() -> [String] {
        directory.files().map(\.path).filter { $0.contains("/") }
    }

    func testADirectoryOfTheOlderFormatIsEmptiedWhenFirstOpened() throws {
        for i in 0..<5 { try writeFormat1Entry(group: "http://x.test/\(i).jpg", body: [UInt8(i)]) }
        // 0.3's journal: the magic and a generation, no format.
        var header = Array("LZDJ".utf8) + [UInt8](repeating: 0, count: DiskCacheJournal.headerSize - 4)
        header[8] = 7
        let fd = Glibc.open(directory.path + "/journal", O_WRONLY | O_CREAT, 0o600)
        XCTAssertTrue(DiskCacheFiles.writeAll(fd, header))
        close(fd)
        XCTAssertEqual(entryFiles().count, 5)

        let cache = try DiskCache(directory: directory.path, limit: 1 << 20)
        XCTAssertEqual(entryFiles(), [], "every old entry removed")
        XCTAssertNil(cache.read(DiskCache.Key(group: "http://x.test/0.jpg")))
        cache.loadIndex()
        XCTAssertEqual(cache.statistics.entries, 0)
        XCTAssertTrue(cache.store(DiskCache.Key(group: "http://x.test/0.jpg"), body: [42], metadata: HTTPCacheMetadata()))
        let reopened = try DiskCache(directory: directory.path, limit: 1 << 20)
        XCTAssertEqual(reopened.read(DiskCache.Key(group: "http://x.test/0.jpg"))?.body, [42], "the new format is kept")
    }

    func testAnOlderEntryUnderACurrentNameIsRemovedNotServed() throws {
        let cache = try DiskCache(directory: directory.path, limit: 1 << 20)
        let key = DiskCache.Key(group: "http://x.test/late.jpg")
        // An older process writing into the directory after it was opened.
        try writeFormat1Entry(group: "http://x.test/late.jpg", body: [1], under: DiskCache.fileName(key))
        XCTAssertNil(cache.read(key))
        XCTAssertEqual(cache.statistics.corruptRemoved, 1)
        XCTAssertEqual(entryFiles(), [])
    }
}
#endif
