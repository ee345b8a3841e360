#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_5 // ThreadSanitizer group 5 (see the Makefile's tsan)
import CLazyImgHeader
@testable import LazyImgCore
import TestSupport
import XCTest

/// preview_interval_ms and LAZYIMG_EVENT_PREVIEW through the C API: libcurl against
/// a loopback server that holds a progressive JPEG's later scans back until the
/// test has seen the preview of the first ones.
final class PreviewEndToEndTests: XCTestCase {
    private var server: HTTPTestServer!
    private let photo = makeNoiseJPEG(width: 768, height: 512, quality: 80, progressive: true)

    override func setUpWithError() throws {
        server = try HTTPTestServer()
        var progress = JPEGScanProgress()
        var secondScanEnd = 0
        for have in 1...photo.count where progress.completeScans < 2 {
            if let end = photo[..<have].withUnsafeBufferPointer({ progress.advance(over: $0) }) { secondScanEnd = end }
        }
        server.serveStalling("/p.jpg", body: photo, sentBytes: secondScanEnd + 2)
    }

    override func tearDown() {
        server.stop()
    }

    func testTheDefaultIsOff() {
        var config = lazyimg_config()
        lazyimg_config_init(&config)
        XCTAssertEqual(config.preview_interval_ms, 0)
    }

    func testAPreviewAtTheBoxComesBeforeTheImageOfTheSameTicket() throws {
        let host = try CHost { $0.target_width = 192; $0.target_height = 192; $0.preview_interval_ms = 20 }
        let ticket = try ask(host)
        host.dispatch(until: 1)
        server.release("/p.jpg")
        dispatchUntilFinal(host)
        let events = host.events
        let preview = try XCTUnwrap(events.first)
        XCTAssertEqual(preview.type, LAZYIMG_EVENT_PREVIEW)
        XCTAssertEqual(preview.status, LAZYIMG_OK)
        XCTAssertEqual(preview.ticket, ticket)
        XCTAssertEqual(preview.row, 0)
        XCTAssertEqual([preview.width, preview.height], [192, 128])
        XCTAssertEqual(preview.message, "")
        XCTAssertEqual(events.last?.type, LAZYIMG_EVENT_IMAGE)
        XCTAssertEqual(events.last?.ticket, ticket)
        XCTAssertEqual(events.filter { $0.type != LAZYIMG_EVENT_PREVIEW }.count, 1)
        XCTAssertEqual(host.stats().memory_cache_count, 1, "the final image only")
    }

    func testALongIntervalGivesOnePreviewPerDownload() throws {
        let host = try CHost { $0.target_width = 192; $0.target_height = 192; $0.preview_interval_ms = 60_000 }
        _ = try ask(host)
        host.dispatch(until: 1)
        server.release("/p.jpg")
        dispatchUntilFinal(host)
        XCTAssertEqual(host.events.map(\.type), [LAZYIMG_EVENT_PREVIEW, LAZYIMG_EVENT_IMAGE],
                       "the scans after the first preview come within its interval")
    }

    func testZeroGivesTheImageOnly() throws {
        let host = try CHost { $0.target_width = 192; $0.target_height = 192 }
        _ = try ask(host)
        XCTAssertTrue(server.waitForHits("/p.jpg", count: 1, timeoutMilliseconds: 10_000))
        server.release("/p.jpg")
        dispatchUntilFinal(host)
        XCTAssertEqual(host.events.map(\.type), [LAZYIMG_EVENT_IMAGE])
    }

    private func ask(_ host: CHost) throws -> UInt64 {
        XCTAssertEqual(host.setItems([server.url("/p.jpg")]), LAZYIMG_OK)
        XCTAssertEqual(lazyimg_set_visible_range(host.loader, 0, 1), LAZYIMG_OK)
        let answer = host.request(0)
        XCTAssertEqual(answer.status, LAZYIMG_PENDING)
        return answer.ticket
    }

    private func dispatchUntilFinal(_ host: CHost) {
        while !host.events.contains(where: { $0.type != LAZYIMG_EVENT_PREVIEW }) {
            let before = host.events.count
            host.dispatch(until: before + 1)
            if host.events.count == before { return }
        }
    }
}
#endif
