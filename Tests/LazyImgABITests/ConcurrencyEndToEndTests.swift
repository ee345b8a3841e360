#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_1 // ThreadSanitizer group 1 (see the Makefile's tsan)
import CLazyImgHeader
import TestSupport
import XCTest

/// How many downloads run at once, seen from the server: responses are held until
/// released, so every request that arrives is in flight at the same time, and
/// connections are reused once free, so the connections accepted are the most that
/// were open at once.
final class ConcurrencyEndToEndTests: XCTestCase {
    private var server: HTTPTestServer!

    override func setUpWithError() throws {
        server = try HTTPTestServer()
    }

    override func tearDown() {
        server.stop()
    }

    /// Rows whose responses wait for `releaseAll`.
    private func heldRows(_ count: Int) -> [String?] {
        let jpeg = makeJPEG(width: 8, height: 8)
        return (0..<count).map { row in
            server.serveGated("/held/\(row).jpg", body: jpeg)
            return server.url("/held/\(row).jpg")
        }
    }

    private func releaseAll(_ count: Int) {
        for row in 0..<count { server.release("/held/\(row).jpg") }
    }

    /// Requests every row, waits until `inFlight` requests are held at the server,
    /// then lets them all go and waits for every image.
    private func load(_ host: CHost, rows: Int, expectingAtOnce inFlight: Int) {
        XCTAssertEqual(host.setItems(heldRows(rows)), LAZYIMG_OK)
        for row in 0..<rows { XCTAssertEqual(host.request(row).status, LAZYIMG_PENDING) }
        XCTAssertTrue(server.waitForTotalHits(count: inFlight, timeoutMilliseconds: 10_000),
                      "\(server.totalHits) of \(inFlight) requests arrived together")
        releaseAll(rows)
        host.dispatch(until: rows)
        XCTAssertEqual(host.events.filter { $0.type == LAZYIMG_EVENT_IMAGE }.count, rows)
    }

    func testTheDefaultsStartAScreenfulOfTenRowsInOneRound() throws {
        let host = try CHost()
        load(host, rows: 10, expectingAtOnce: 10)
        XCTAssertEqual(server.connectionsAccepted, 10)
    }

    func testMaxConcurrentDownloadsCapsTheDownloadsAtOnce() throws {
        let host = try CHost { $0.max_concurrent_downloads = 3 }
        load(host, rows: 8, expectingAtOnce: 3)
        XCTAssertEqual(server.connectionsAccepted, 3, "never more than 3 at once")
    }

    func testMaxHostConnectionsCapsTheConnectionsToOneHost() throws {
        let host = try CHost { $0.max_host_connections = 2 }
        load(host, rows: 8, expectingAtOnce: 2)
        XCTAssertEqual(server.connectionsAccepted, 2, "8 downloads started, over 2 connections")
        XCTAssertEqual(host.stats().downloads_started, 8)
    }

    func testConnectionLimitsAreValidated() {
        var config = lazyimg_config()
        lazyimg_config_init(&config)
        XCTAssertEqual(config.max_concurrent_downloads, 16)
        XCTAssertEqual(config.max_host_connections, 10)
        config.max_host_connections = 65
        var loader: OpaquePointer?
        XCTAssertEqual(lazyimg_loader_create(&config, &loader), LAZYIMG_E_INVALID_ARGUMENT)
        XCTAssertNil(loader)
    }
}
#endif
