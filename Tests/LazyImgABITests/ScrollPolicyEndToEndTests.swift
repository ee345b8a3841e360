#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_1 // ThreadSanitizer group 1 (see the Makefile's tsan)
import CLazyImgHeader
import Glibc
import TestSupport
import XCTest

/// The scroll policy through the C API: real libcurl against the loopback server,
/// real JPEG decoding, a fling scripted frame by frame as a UI reports it (state,
/// then range, then a request for each newly visible row, then one dispatch).
final class ScrollPolicyEndToEndTests: XCTestCase {
    private var server: HTTPTestServer!

    override func setUpWithError() throws {
        server = try HTTPTestServer()
    }

    override func tearDown() {
        server.stop()
    }

    /// One frame: state and velocity, the visible range, requests for rows that came
    /// into view; returns the tickets and images it got, by row.
    private func frame(_ host: CHost, _ state: lazyimg_scroll_state, _ velocity: Double, first: Int,
                       shown: inout Set<Int>, tickets: inout [Int: UInt64], images: inout Set<Int>) {
        XCTAssertEqual(lazyimg_set_scroll_state(host.loader, state, velocity), LAZYIMG_OK)
        XCTAssertEqual(lazyimg_set_visible_range(host.loader, first, 10), LAZYIMG_OK)
        for row in first..<first + 10 where !shown.contains(row) {
            shown.insert(row)
            let answer = host.request(row)
            if answer.status == LAZYIMG_OK { images.insert(row) } else { tickets[row] = answer.ticket }
        }
        _ = lazyimg_dispatch(host.loader, 0)
    }

    func testAFlingLoadsNothingInFlightStartsTheLandingRowsEarlyAndShowsTheRestingScreen() throws {
        let rows = 400
        let jpeg = makeJPEG(width: 64, height: 48)
        for n in 0..<rows { server.serve("/\(n).jpg", body: jpeg) }
        let host = try CHost { $0.target_width = 32 }
        XCTAssertEqual(host.setItems((0..<rows).map { server.url("/\($0).jpg") }), LAZYIMG_OK)
        var shown = Set<Int>(), tickets: [Int: UInt64] = [:], images = Set<Int>()

        // At rest on the first screen, then a fling: 40 rows per frame, far faster
        // than a screen a second.
        frame(host, LAZYIMG_SCROLL_IDLE, 0, first: 0, shown: &shown, tickets: &tickets, images: &images)
        host.dispatch(until: tickets.count)  // rows already in memory answered OK, no event
        let atRest = host.stats().downloads_started
        XCTAssertEqual(lazyimg_set_scroll_state(host.loader, LAZYIMG_SCROLL_DRAGGING, 2_400), LAZYIMG_OK)
        for first in stride(from: 40, through: 160, by: 40) {
            frame(host, LAZYIMG_SCROLL_DRAGGING, 2_400, first: first, shown: &shown, tickets: &tickets, images: &images)
        }
        XCTAssertEqual(host.stats().downloads_started, atRest, "nothing starts while flying")

        // The finger lifts: the toolkit says the list will rest at row 300. The frames
        // are paced at 60 Hz, as a UI's are: the loader times the rest by its own clock
        // and starts the target's rows once the list is due there.
        XCTAssertEqual(lazyimg_set_scroll_target(host.loader, 300, 10), LAZYIMG_OK)
        for first in [200, 240, 270, 290, 300] {
            usleep(16_000)
            frame(host, LAZYIMG_SCROLL_DECELERATING, 1_200, first: first, shown: &shown, tickets: &tickets, images: &images)
        }
        for row in 300..<310 {
            XCTAssertTrue(server.waitForHits("/\(row).jpg", count: 1, timeoutMilliseconds: 10_000),
                          "landing row \(row) started before the list rested")
        }
        for row in 20..<290 { XCTAssertEqual(server.hits("/\(row).jpg"), 0, "row \(row) flew past") }

        // At rest where its last frame was (the toolkit reports the final offset before
        // it ends the deceleration): every visible row arrives, each downloaded once.
        frame(host, LAZYIMG_SCROLL_IDLE, 0, first: 300, shown: &shown, tickets: &tickets, images: &images)
        // The frame's own dispatch may already have delivered every image: look at
        // what arrived before waiting for more.
        let landed = Set((300..<310).compactMap { tickets[$0] })
        func imagesReceived() -> Set<UInt64> {
            Set(host.events.filter { $0.type == LAZYIMG_EVENT_IMAGE }.map(\.ticket))
        }
        while !landed.isSubset(of: imagesReceived()) {
            guard lazyimg_wait(host.loader, 15_000) == LAZYIMG_OK else {
                return XCTFail("timed out; images for \(landed.subtracting(imagesReceived()).count) of "
                               + "\(landed.count) resting tickets missing")
            }
            _ = lazyimg_dispatch(host.loader, 0)
        }
        XCTAssertEqual(landed.count + images.intersection(300..<310).count, 10)
        for row in 300..<310 { XCTAssertEqual(server.hits("/\(row).jpg"), 1) }
        for row in 40..<290 where tickets[row] != nil {
            let event = try XCTUnwrap(host.events.first { $0.ticket == tickets[row] })
            XCTAssertEqual(event.status, LAZYIMG_E_CANCELLED, "row \(row) flew past")
        }
    }

    func testTheScrollTargetAndTheNewConfigFieldsFollowTheContract() throws {
        XCTAssertEqual(lazyimg_set_scroll_target(nil, 0, 10), LAZYIMG_E_INVALID_ARGUMENT)
        var config = lazyimg_config()
        lazyimg_config_init(&config)
        XCTAssertEqual(config.slow_scroll_rows_per_second, 0)
        XCTAssertEqual(config.prefetch_waste_bytes, 4 << 20)
        for bad in [-1.0, .nan, .infinity] {
            var created: OpaquePointer?
            config.slow_scroll_rows_per_second = bad
            XCTAssertEqual(lazyimg_loader_create(&config, &created), LAZYIMG_E_INVALID_ARGUMENT, "\(bad)")
            XCTAssertNil(created)
        }
        let host = try CHost()
        XCTAssertEqual(host.setItems((0..<100).map { "http://127.0.0.1:9/\($0).jpg" }), LAZYIMG_OK)
        XCTAssertEqual(lazyimg_set_visible_range(host.loader, 90, .max), LAZYIMG_OK)
        XCTAssertEqual(lazyimg_set_scroll_target(host.loader, .max, .max), LAZYIMG_OK, "clamped, not trapped")
        for velocity in [Double.infinity, -.infinity, 1e308, -1e308, .leastNonzeroMagnitude] {
            XCTAssertEqual(lazyimg_set_scroll_state(host.loader, LAZYIMG_SCROLL_DECELERATING, velocity), LAZYIMG_OK)
        }
        XCTAssertEqual(lazyimg_set_scroll_target(host.loader, 0, 0), LAZYIMG_OK, "withdrawn")
        XCTAssertEqual(host.destroy(), LAZYIMG_OK)
        XCTAssertEqual(lazyimg_set_scroll_target(nil, 1, 1), LAZYIMG_E_INVALID_ARGUMENT)
    }

    func testASlowScrollSpeedSetByTheHostLoadsWhileDragging() throws {
        server.serveGated("/a.jpg", body: makeJPEG(width: 8, height: 8))
        let fast = try CHost()
        let slow = try CHost { $0.slow_scroll_rows_per_second = 100 }
        for host in [fast, slow] {
            XCTAssertEqual(host.setItems([server.url("/a.jpg")]), LAZYIMG_OK)
            XCTAssertEqual(lazyimg_set_scroll_state(host.loader, LAZYIMG_SCROLL_DRAGGING, 50), LAZYIMG_OK)
            XCTAssertEqual(lazyimg_set_visible_range(host.loader, 0, 1), LAZYIMG_OK)
        }
        XCTAssertEqual(fast.request(0).status, LAZYIMG_DEFERRED, "50 rows/s: 50 screens a second")
        XCTAssertEqual(slow.request(0).status, LAZYIMG_PENDING, "under the host's 100 rows/s")
        server.release("/a.jpg")
    }
}
#endif
