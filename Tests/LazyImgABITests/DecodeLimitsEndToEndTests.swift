#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_5 // ThreadSanitizer group 5 (see the Makefile's tsan)
import CLazyImgHeader
import TestSupport
import XCTest

/// The size limits through the C API, at their exact edges (issue 17, "held and must
/// keep holding"): a file of exactly max_response_bytes or max_pixels loads, one byte
/// or pixel more fails with TOO_LARGE, for every format and for lazyimg_fetch; and
/// max_decode_bytes refuses what would need more working memory, saying so.
final class DecodeLimitsEndToEndTests: XCTestCase {
    private var server: HTTPTestServer!

    override func setUpWithError() throws {
        server = try HTTPTestServer()
    }

    override func tearDown() {
        server.stop()
    }

    /// 40 x 25 = 1000 pixels in each format this build decodes.
    private static let files: [(name: String, bytes: [UInt8])] = [
        ("a.jpg", makeJPEG(width: 40, height: 25)),
        ("a.png", makePNG(width: 40, height: 25)),
        ("a.webp", makeWebP(width: 40, height: 25)),
        ("a.gif", makeGIF(screenWidth: 40, screenHeight: 25, palette: [[1, 2, 3]],
                          frames: [GIFTestFrame(width: 40, height: 25, indices: [UInt8](repeating: 0, count: 1000))])),
        ("anim.webp", makeAnimatedWebP(canvasWidth: 40, canvasHeight: 25, frames: [
            WebPTestFrame(left: 0, top: 0, width: 40, height: 25, webp: makeWebP(width: 40, height: 25)),
            WebPTestFrame(left: 2, top: 2, width: 4, height: 4, webp: makeWebP(width: 4, height: 4)),
        ])),
    ]

    /// Loads every file once and returns each event's status, in file order.
    private func load(_ configure: (inout lazyimg_config) -> Void, names: [String]? = nil) throws -> [lazyimg_status] {
        let host = try CHost(configure)
        let urls = (names ?? Self.files.map(\.name)).map { server.url("/" + $0) }
        XCTAssertEqual(host.setItems(urls), LAZYIMG_OK)
        var pending = 0
        for row in urls.indices where host.request(row).status == LAZYIMG_PENDING { pending += 1 }
        host.dispatch(until: pending)
        return host.events.sorted { $0.row < $1.row }.map(\.status)
    }

    func testMaxPixelsHoldsAtTheExactEdgeForEveryFormat() throws {
        for file in Self.files { server.serve("/" + file.name, body: file.bytes) }
        let all = Self.files.count
        XCTAssertEqual(try load { $0.max_pixels = 1000 }, Array(repeating: LAZYIMG_OK, count: all))
        XCTAssertEqual(try load { $0.max_pixels = 999 }, Array(repeating: LAZYIMG_E_TOO_LARGE, count: all))
    }

    func testMaxResponseBytesHoldsAtTheExactEdgeForEveryFormatAndFraming() throws {
        for framing in [HTTPTestServer.Framing.contentLength, .chunked] {
            for file in Self.files {
                server.serve("/" + file.name, body: file.bytes, framing: framing)
                let exact = file.bytes.count
                XCTAssertEqual(try load({ $0.max_response_bytes = UInt64(exact) }, names: [file.name]), [LAZYIMG_OK],
                               "\(file.name), \(framing), exactly max_response_bytes")
                XCTAssertEqual(try load({ $0.max_response_bytes = UInt64(exact - 1) }, names: [file.name]),
                               [LAZYIMG_E_TOO_LARGE], "\(file.name), \(framing), one byte over")
            }
        }
    }

    func testMaxResponseBytesHoldsAtTheExactEdgeForAFetch() throws {
        let body = [UInt8](repeating: 9, count: 4096)
        for framing in [HTTPTestServer.Framing.contentLength, .chunked] {
            server.serve("/feed", body: body, framing: framing)
            for (limit, expected) in [(4096, LAZYIMG_OK), (4095, LAZYIMG_E_TOO_LARGE)] {
                let host = try CHost { $0.max_response_bytes = UInt64(limit) }
                var ticket: UInt64 = 0
                XCTAssertEqual(lazyimg_fetch(host.loader, server.url("/feed"), &ticket), LAZYIMG_PENDING)
                host.dispatch(until: 1)
                let event = try XCTUnwrap(host.events.first)
                XCTAssertEqual(event.status, expected, "\(framing), limit \(limit)")
                XCTAssertEqual(event.data.count, expected == LAZYIMG_OK ? body.count : 0)
            }
        }
    }

    func testMaxDecodeBytesRefusesWhatNeedsMoreAndSaysWhy() throws {
        // 600 x 600 progressive 4:4:4: libjpeg would keep 75 x 75 x 3 blocks of 128
        // bytes of coefficients, 2.1 MiB.
        server.serve("/p.jpg", body: makeFlatJPEG(width: 600, height: 600, layout: .yuv444, progressive: true))
        server.serve("/b.jpg", body: makeFlatJPEG(width: 600, height: 600, layout: .yuv444))
        let host = try CHost { $0.max_decode_bytes = 2 << 20 }
        XCTAssertEqual(host.setItems([server.url("/p.jpg"), server.url("/b.jpg")]), LAZYIMG_OK)
        XCTAssertEqual(host.request(0).status, LAZYIMG_PENDING)
        XCTAssertEqual(host.request(1).status, LAZYIMG_PENDING)
        host.dispatch(until: 2)
        let events = host.events.sorted { $0.row < $1.row }
        XCTAssertEqual(events.map(\.status), [LAZYIMG_E_TOO_LARGE, LAZYIMG_OK], "a baseline file streams its rows")
        XCTAssertEqual(events.first?.message,
                       "progressive JPEG of 600x600: needs 2.2 MiB to decode (2.1 MiB of it coefficients), "
                           + "over the 2 MiB a decode may hold")
        XCTAssertEqual(try load({ _ in }, names: ["p.jpg"]), [LAZYIMG_OK], "within the default 64 MiB")
    }

    func testMaxDecodeBytesDefaultsTo64MiB() {
        var config = lazyimg_config()
        lazyimg_config_init(&config)
        XCTAssertEqual(config.max_decode_bytes, 64 << 20)
    }
}
#endif
