#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_3 // ThreadSanitizer group 3 (see the Makefile's tsan)
import Glibc
import LazyImgCore
import XCTest

/// Keys and URLs compare as bytes, never as Unicode text.
final class ImageURLTests: XCTestCase {
    func testCanonicallyEquivalentURLsAreDifferentKeys() {
        let nfc = "http://a.test/caf\u{E9}.png", nfd = "http://a.test/cafe\u{301}.png"
        XCTAssertEqual(nfc, nfd, "as Swift text they are equal")
        XCTAssertNotEqual(ImageURL(nfc), ImageURL(nfd))
        XCTAssertNotEqual(CacheKey(url: nfc, target: .original), CacheKey(url: nfd, target: .original))
        XCTAssertEqual(CacheKey(url: nfc, target: .original), CacheKey(url: nfc, target: .original))
    }

    func testInvalidUTF8IsKeptAsItIs() {
        let ff = ImageURL(bytes: Array("http://a.test/".utf8) + [0xFF])
        let fe = ImageURL(bytes: Array("http://a.test/".utf8) + [0xFE])
        XCTAssertNotEqual(ff, fe)
        XCTAssertEqual(ff.bytes.last, 0xFF)
        XCTAssertEqual(ff.withCString { strlen($0) }, "http://a.test/".utf8.count + 1, "the C string is the bytes")
        var failures = FailureRecords(retryAfterMilliseconds: 1000)
        failures.record(ff, error: .http(status: 404), httpStatus: 404, now: 0)
        XCTAssertNil(failures.recentFailure(of: fe, now: 1), "one URL's failure is not another's")
        XCTAssertNotNil(failures.recentFailure(of: ff, now: 1))
    }
}
#endif
