#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_4 // ThreadSanitizer group 4 (see the Makefile's tsan)
import CLazyImgHeader
import Glibc
import LazyImgCore
import TestSupport
import XCTest

/// Servers that accept and then answer slowly or never, through the C API with the
/// default configuration: they hold their own rows, never the other hosts' ones.
final class SlowServerTests: XCTestCase {
    private var silent: HTTPTestServer!
    private var other: HTTPTestServer!
    private let clock = MonotonicClock()

    override func setUpWithError() throws {
        silent = try HTTPTestServer()
        other = try HTTPTestServer()
        other.serve("/fast.jpg", body: makeJPEG(width: 8, height: 8))
    }

    override func tearDown() {
        silent.stop()
        other.stop()
    }

    private func time(_ body: () -> Void) -> Int64 {
        let start = clock.nowMilliseconds
        body()
        return clock.nowMilliseconds - start
    }

    func testASilentHostNeverHoldsBackAnotherHostsRow() throws {
        // Before: the silent host took its 10 connections and the other 6 of the 16
        // download slots waited in libcurl's queue behind them, so the other host's
        // row came only when the silent ones timed out (15 s).
        let silentRows = 16
        for n in 0..<silentRows { silent.serveGated("/\(n).jpg", body: makeJPEG(width: 8, height: 8)) }
        let host = try CHost()
        let urls = (0..<silentRows).map { silent.url("/\($0).jpg") } + [other.url("/fast.jpg")]
        XCTAssertEqual(host.setItems(urls), LAZYIMG_OK)
        XCTAssertEqual(lazyimg_set_visible_range(host.loader, 0, urls.count), LAZYIMG_OK)
        for row in urls.indices { XCTAssertEqual(host.request(row).status, LAZYIMG_PENDING) }
        XCTAssertTrue(silent.waitForTotalHits(count: 10, timeoutMilliseconds: 5_000))
        let arrival = time { XCTAssertTrue(host.dispatch(until: 1, withinMilliseconds: 5_000)) }
        XCTAssertEqual(host.events.map(\.row), [silentRows], "\(host.events)")
        XCTAssertEqual(host.events.first?.type, LAZYIMG_EVENT_IMAGE)
        XCTAssertLessThan(arrival, 1_000, "the other host's row waited behind the silent host")
        XCTAssertEqual(silent.totalHits, 10, "no more than max_host_connections to one host at once")
        for n in 0..<silentRows { silent.release("/\(n).jpg") }
        XCTAssertTrue(host.dispatch(until: urls.count, withinMilliseconds: 10_000))
        XCTAssertEqual(host.events.filter { $0.type == LAZYIMG_EVENT_IMAGE }.count, urls.count,
                       "the held-back rows start as the host's slots free")
    }
}
#endif
