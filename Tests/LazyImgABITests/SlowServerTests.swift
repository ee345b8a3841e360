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

    /// A server that answers slowly (a byte every 100 ms) or never is cut at timeout_ms
    /// on each try: 4 tries (3 retries), each its own request.
    func testSlowAndSilentServersAreCutAtTheTimeoutOfEachTry() throws {
        silent.serveTrickling("/slowloris.jpg", body: [UInt8](repeating: 1, count: 1000), intervalMilliseconds: 100)
        other.serveGated("/silent.jpg", body: [1])
        let host = try CHost { $0.timeout_ms = 500 }
        XCTAssertEqual(host.setItems([silent.url("/slowloris.jpg"), other.url("/silent.jpg")]), LAZYIMG_OK)
        XCTAssertEqual(host.request(0).status, LAZYIMG_PENDING)
        XCTAssertEqual(host.request(1).status, LAZYIMG_PENDING)
        let elapsed = time { XCTAssertTrue(host.dispatch(until: 2, withinMilliseconds: 10_000)) }
        XCTAssertEqual(host.events.map(\.status), [LAZYIMG_E_NETWORK, LAZYIMG_E_NETWORK])
        XCTAssertEqual(silent.hits("/slowloris.jpg"), 4)
        XCTAssertEqual(other.hits("/silent.jpg"), 4)
        // 4 x 500 ms, and back-off between of at most 1.75 s in all, the last wait
        // stretched to the host's pause of 1 s after its third failure in a row: about
        // 3.5 s, where the slowloris body alone would take 100 s.
        XCTAssertGreaterThanOrEqual(elapsed, 2_000)
        XCTAssertLessThan(elapsed, 8_000)
    }

    func testDestroyWith60SlowTransfersInFlightReturnsAtOnce() throws {
        let hosts = try (0..<6).map { _ in try HTTPTestServer() }
        defer { hosts.forEach { $0.stop() } }
        var urls: [String] = []
        for (n, server) in hosts.enumerated() {
            for row in 0..<10 {
                server.serveGated("/\(row).jpg", body: [1])
                urls.append(server.url("/\(row).jpg?host=\(n)"))
            }
        }
        let host = try CHost { $0.max_concurrent_downloads = 64 }
        XCTAssertEqual(host.setItems(urls), LAZYIMG_OK)
        XCTAssertEqual(lazyimg_set_visible_range(host.loader, 0, urls.count), LAZYIMG_OK)
        for row in urls.indices { XCTAssertEqual(host.request(row).status, LAZYIMG_PENDING) }
        for server in hosts { XCTAssertTrue(server.waitForTotalHits(count: 10, timeoutMilliseconds: 5_000)) }
        XCTAssertLessThan(time { XCTAssertEqual(host.destroy(), LAZYIMG_OK) }, 500)
        XCTAssertEqual(host.events.count, 60)
        XCTAssertEqual(Set(host.events.map(\.status)), [LAZYIMG_E_CANCELLED])
    }
}
#endif
