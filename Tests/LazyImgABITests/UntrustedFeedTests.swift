import CLazyImgHeader
import Glibc
import TestSupport
import XCTest

/// The C API fed by an untrusted list and hostile servers: real libcurl against the
/// loopback server, through lazyimg_request and events as a host sees them.
final class UntrustedFeedTests: XCTestCase {
    private var server: HTTPTestServer!

    override func setUpWithError() throws {
        server = try HTTPTestServer()
    }

    override func tearDown() {
        server.stop()
    }

    /// Requests every row and dispatches until each has its event.
    private func load(_ host: CHost, _ urls: [String]) -> [ReceivedEvent] {
        XCTAssertEqual(host.setItems(urls), LAZYIMG_OK)
        var pending = 0
        for row in urls.indices where host.request(row).status == LAZYIMG_PENDING { pending += 1 }
        host.dispatch(until: pending)
        return host.events.sorted { $0.row < $1.row }
    }

    func testNoLimitIsCappedSoA64GiBAnnouncementIsRefused() throws {
        server.serve("/huge.png", body: [1, 2, 3], framing: .declaredLength(64 << 30))
        let host = try CHost { $0.max_response_bytes = UInt64.max }
        let events = load(host, [server.url("/huge.png")])
        XCTAssertEqual(events.map(\.status), [LAZYIMG_E_TOO_LARGE], "UINT64_MAX means the 1 GiB cap")
    }
}
