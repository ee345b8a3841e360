#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_4 // ThreadSanitizer group 4 (see the Makefile's tsan)
@testable import LazyImgCore
import XCTest

/// How a hop's body grows and what it charges: exact for an honest length, never
/// more than twice what came for a lying one (until 1 MiB did come), never past the
/// limit, and nothing counted twice when the budget pauses it.
final class ResponseBodyTests: XCTestCase {
    private let owner = ObjectIdentifier(ResponseBodyTests.self)

    private func feed(_ body: inout ResponseBody, _ count: Int, chunk: Int = 16 << 10,
                      keep: Bool = true) -> ResponseBody.Reception {
        let bytes = [UInt8](repeating: 1, count: chunk)
        var left = count
        while left > 0 {
            let reception = bytes.withUnsafeBytes {
                body.receive(UnsafeRawBufferPointer(rebasing: $0[..<min(chunk, left)]), keep: keep, owner: owner)
            }
            guard reception == .taken else { return reception }
            left -= min(chunk, left)
        }
        return .taken
    }

    func testAnHonestLengthEndsInStorageOfExactlyItsSize() {
        var body = ResponseBody(limit: 0, budget: DownloadBudget(limit: .max))
        body.announced = 3_000_000
        XCTAssertEqual(feed(&body, 3_000_000), .taken)
        XCTAssertEqual(body.charged, 3_000_000)
        XCTAssertEqual(body.take().count, 3_000_000)
    }

    func testALyingLengthGetsNoMoreThanTwiceWhatCame() {
        var body = ResponseBody(limit: 0, budget: nil)
        body.announced = Int.max
        XCTAssertEqual(feed(&body, 300_000), .taken)
        XCTAssertLessThanOrEqual(body.charged, 600_000)
    }

    func testStorageNeverPassesTheLimitAndOneByteMoreAborts() {
        var body = ResponseBody(limit: 100_000, budget: nil)
        XCTAssertEqual(feed(&body, 100_000, chunk: 7_000), .taken)
        XCTAssertEqual(body.charged, 100_000)
        XCTAssertEqual(feed(&body, 1), .overLimit)
    }

    func testAPausedChunkIsNotCountedAndBytesThatHoldNoImageAreNotKept() {
        let budget = DownloadBudget(limit: 10)
        budget.queue(20)
        var body = ResponseBody(limit: 0, budget: budget)
        XCTAssertEqual(feed(&body, 100), .paused)
        XCTAssertEqual(body.received, 0, "libcurl hands the same bytes again")
        XCTAssertEqual(feed(&body, 5_000, keep: false), .taken, "an error page takes no storage")
        XCTAssertEqual(body.received, 5_000)
        XCTAssertEqual(body.charged, 0)
        XCTAssertEqual(body.take(), [])
    }

    func testByteCountersSaturate() {
        XCTAssertEqual(UInt64.max.addingClamped(5), .max)
        XCTAssertEqual(UInt64(7).addingClamped(-3), 7)
    }
}
#endif
