#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_1 // ThreadSanitizer group 1 (see the Makefile's tsan)
import XCTest
@testable import LazyImgCore

/// Freshness, storing and revalidation rules, and the digests the disk cache names
/// and checks its files with (against published test vectors).
///
/// An extension rather than a class of its own: under ThreadSanitizer, XCTest's
/// test listing crashes in the Swift runtime once the bundle has more than about
/// 23 test classes (a type-name cache growing; a toolchain bug).
extension DiskCacheTests {
    func testMaxAgeIsFreshForThatLongThenStale() {
        let metadata = HTTPCacheMetadata(headers: HTTPCacheHeaders(cacheControl: "public, Max-Age=60"), now: 1_000)
        XCTAssertEqual(metadata.maxAgeSeconds, 60)
        XCTAssertTrue(metadata.isFresh(now: 1_059))
        XCTAssertFalse(metadata.isFresh(now: 1_060))
        XCTAssertFalse(metadata.isFresh(now: 999), "a clock that went back does not extend freshness")
    }

    func testNoCacheAndBadMaxAgeAreStaleAndSilenceIsFresh() {
        XCTAssertFalse(HTTPCacheMetadata(headers: HTTPCacheHeaders(cacheControl: "no-cache"), now: 0).isFresh(now: 0))
        XCTAssertFalse(HTTPCacheMetadata(headers: HTTPCacheHeaders(cacheControl: "max-age=soon"), now: 0).isFresh(now: 0))
        XCTAssertTrue(HTTPCacheMetadata(headers: HTTPCacheHeaders(), now: 0).isFresh(now: 1 << 40))
        XCTAssertTrue(HTTPCacheMetadata(headers: HTTPCacheHeaders(cacheControl: "max-age=\"10\""), now: 0).isFresh(now: 9))
    }

    func testNoStoreIsNeverStored() {
        XCTAssertFalse(HTTPCacheMetadata.allowsStoring(HTTPCacheHeaders(cacheControl: "private, no-store")))
        XCTAssertTrue(HTTPCacheMetadata.allowsStoring(HTTPCacheHeaders(cacheControl: "no-cache")))
        XCTAssertTrue(HTTPCacheMetadata.allowsStoring(HTTPCacheHeaders()))
    }

    func testValidatorsBecomeConditionalHeadersAndA304RefreshesThem() {
        let stored = HTTPCacheMetadata(headers: HTTPCacheHeaders(etag: "\"a\"", lastModified: "Mon, 30 Nov 2026 08:00:00 GMT",
                                                                 cacheControl: "max-age=10"), now: 100)
        XCTAssertEqual(stored.validatorHeaders, ["If-None-Match: \"a\"", "If-Modified-Since: Mon, 30 Nov 2026 08:00:00 GMT"])
        let refreshed = stored.revalidated(by: HTTPCacheHeaders(etag: "\"b\""), now: 500)
        XCTAssertEqual(refreshed.etag, "\"b\"")
        XCTAssertEqual(refreshed.maxAgeSeconds, 10, "kept: the 304 did not repeat Cache-Control")
        XCTAssertTrue(refreshed.isFresh(now: 505))
        let bad = HTTPCacheMetadata(etag: "\"x\"\r\nEvil: 1")
        XCTAssertEqual(bad.validatorHeaders, [], "a stored value never smuggles a header line")
    }

    func testSHA256AndCRC32MatchTheirTestVectors() {
        let hex = { (bytes: [UInt8]) in bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined() }
        XCTAssertEqual(hex(SHA256.digest(Array("abc".utf8))), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(hex(SHA256.digest([UInt8](repeating: UInt8(ascii: "a"), count: 1000))),
                       "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
        XCTAssertEqual(CRC32.checksum(Array("123456789".utf8)), 0xCBF4_3926)
    }
}
#endif
