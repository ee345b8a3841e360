#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_5 // ThreadSanitizer group 5 (see the Makefile's tsan)
import CLazyImgHeader
import TestSupport
import XCTest

/// fetch_first_pass_only through the C API: libcurl against a loopback server of byte
/// ranges, a progressive JPEG made by TurboJPEG, its body stopped at the DC scans.
final class DCScanFetchEndToEndTests: XCTestCase {
    private var server: HTTPTestServer!
    private let photo = makeNoiseJPEG(width: 768, height: 512, quality: 80, progressive: true)

    override func setUpWithError() throws {
        server = try HTTPTestServer()
        server.serveRanges("/p.jpg", body: photo, validator: "\"p1\"")
    }

    override func tearDown() {
        server.stop()
    }

    func testASmallBoxGetsTheImageFromTheFileStartByDefault() throws {
        let host = try CHost { $0.target_width = 64; $0.target_height = 64 }
        XCTAssertEqual(show(host), [64, 43])
        // A server not known yet: one whole request, stopped at the DC scans.
        XCTAssertEqual(server.requests("/p.jpg").map { $0.header("Range") }, [nil])
        XCTAssertLessThan(host.stats().bytes_downloaded, UInt64(photo.count / 4))
    }

    func testZeroFetchesTheWholeFile() throws {
        let host = try CHost { $0.target_width = 64; $0.target_height = 64; $0.fetch_first_pass_only = 0 }
        XCTAssertEqual(show(host), [64, 43])
        XCTAssertNil(server.requests("/p.jpg").first?.header("Range"))
        XCTAssertEqual(host.stats().bytes_downloaded, UInt64(photo.count))
    }

    func testTheDefaultIsOn() {
        var config = lazyimg_config()
        lazyimg_config_init(&config)
        XCTAssertEqual(config.fetch_first_pass_only, 1)
    }

    private func show(_ host: CHost) -> [UInt32] {
        XCTAssertEqual(host.setItems([server.url("/p.jpg")]), LAZYIMG_OK)
        XCTAssertEqual(host.request(0).status, LAZYIMG_PENDING)
        host.dispatch(until: 1)
        XCTAssertEqual(host.events.first?.status, LAZYIMG_OK, host.events.first?.message ?? "")
        return [host.events.first?.width ?? 0, host.events.first?.height ?? 0]
    }
}
#endif
