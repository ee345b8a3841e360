#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_2 // ThreadSanitizer group 2 (see the Makefile's tsan)
import LazyImgCore
import XCTest

/// Coalescing and the memory cache match a URL byte for byte, plus the decode options.
final class CacheKeyTests: XCTestCase {
    func testCanonicallyEquivalentURLsAreDifferentKeys() {
        let composed = CacheKey(url: "http://h/caf\u{E9}.png", target: TargetSize(width: 64, height: 64))
        let decomposed = CacheKey(url: "http://h/cafe\u{301}.png", target: TargetSize(width: 64, height: 64))
        XCTAssertEqual("http://h/caf\u{E9}.png", "http://h/cafe\u{301}.png", "String == is canonical equivalence")
        XCTAssertNotEqual(composed, decomposed)
        XCTAssertEqual(Set([composed, decomposed]).count, 2)
    }

    func testSameBytesAndOptionsAreOneKey() {
        let a = CacheKey(url: "http://h/a.png", target: TargetSize(width: 64, height: 64))
        let b = CacheKey(url: String(decoding: Array("http://h/a.png".utf8), as: UTF8.self),
                         target: TargetSize(width: 64, height: 64))
        XCTAssertEqual(a, b)
        XCTAssertNotEqual(a, CacheKey(url: "http://h/a.png", target: TargetSize(width: 32, height: 64)))
    }

    func testFailureRecordsMatchURLsByteForByte() {
        let box = TargetSize(width: 64, height: 64)
        var records = FailureRecords(retryAfterMilliseconds: 2000)
        records.record(CacheKey(url: "http://h/caf\u{E9}.png", target: box).url, error: .http(status: 404),
                       httpStatus: 404, now: 0)
        XCTAssertNotNil(records.recentFailure(of: CacheKey(url: "http://h/caf\u{E9}.png", target: box).url, now: 1))
        XCTAssertNil(records.recentFailure(of: CacheKey(url: "http://h/cafe\u{301}.png", target: box).url, now: 1))
    }
}
#endif
