#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_3 // ThreadSanitizer group 3 (see the Makefile's tsan)
import Glibc
import XCTest
@testable import LazyImgCore

/// The host's scroll samples timed by the cycle counter come out on the monotonic
/// clock, to the millisecond, however old they are when the scheduler reads them.
final class CycleStampsTests: XCTestCase {
    private let clock = MonotonicClock()

    override func setUpWithError() throws {
        try XCTSkipUnless(CycleStamps.keepTime, "the kernel does not keep time by the cycle counter here")
    }

    func testAStampTakenNowIsNow() {
        let reader = CycleStampReader()
        for _ in 0..<100 {
            let before = clock.nowMilliseconds
            let stamp = CycleStamps.now
            let after = clock.nowMilliseconds
            let at = reader.milliseconds(atStamp: stamp)
            XCTAssertGreaterThanOrEqual(at, before - 1)
            XCTAssertLessThanOrEqual(at, after + 1)
        }
    }

    func testAnOldStampIsItsAgeBeforeTheReading() {
        let reader = CycleStampReader()
        let before = clock.nowMilliseconds
        let stamp = CycleStamps.now
        let after = clock.nowMilliseconds
        // The stamp's age, not a wait for anything.
        usleep(40_000)
        let at = reader.milliseconds(atStamp: stamp)
        XCTAssertGreaterThanOrEqual(at, before - 1)
        XCTAssertLessThanOrEqual(at, after + 1, "read \(clock.nowMilliseconds - at) ms after it was taken")
    }

    func testAStampFromBeyondTheReadingIsTheReading() {
        let reader = CycleStampReader()
        let before = clock.nowMilliseconds
        let at = reader.milliseconds(atStamp: .max)
        XCTAssertGreaterThanOrEqual(at, before)
        XCTAssertLessThanOrEqual(at, clock.nowMilliseconds)
    }

    func testTheRealClockStampsByCyclesAndAFakeOneDoesNot() {
        XCTAssertTrue(clock.stampsCountCycles)
        XCTAssertFalse(ManualClock().stampsCountCycles)
    }
}
#endif
