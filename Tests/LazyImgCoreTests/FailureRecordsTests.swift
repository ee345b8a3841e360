#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_5 // ThreadSanitizer group 5 (see the Makefile's tsan)
import LazyImgCore
import XCTest

/// A miss reads `isEmpty` instead of the table: it must follow the table.
final class FailureRecordsTests: XCTestCase {
    func testIsEmptyFollowsTheRecordsAsTheyComeAndExpire() {
        var failures = FailureRecords(retryAfterMilliseconds: 100)
        XCTAssertTrue(failures.isEmpty)
        failures.record(ImageURL("http://a.test/1.png"), error: .network, httpStatus: 0, now: 0)
        XCTAssertFalse(failures.isEmpty)
        XCTAssertNotNil(failures.recentFailure(of: ImageURL("http://a.test/1.png"), now: 50))
        XCTAssertNil(failures.recentFailure(of: ImageURL("http://a.test/1.png"), now: 100), "expired")
        XCTAssertTrue(failures.isEmpty, "the expired record left the table")
    }
}
#endif
