#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_2 // ThreadSanitizer group 2 (see the Makefile's tsan)
import CLazyImgHeader
import Glibc
import TestSupport
import XCTest

/// HTTP/2 against a real HTTP/2 server (Debian's nghttpd over TLS on loopback): the
/// rows of a screen, started at once, share one connection with a stream each
/// (CURLPIPE_MULTIPLEX and CURLOPT_PIPEWAIT), where HTTP/1.1 opens one per row.
final class HTTP2MultiplexTests: XCTestCase {
    func testAScreenfulStartedAtOnceSharesOneConnection() throws {
        guard let server = try HTTP2TestServer() else {
            throw XCTSkip("nghttpd (Debian package nghttp2-server) or openssl could not run an HTTP/2 test server")
        }
        defer { server.stop() }
        let rows = 10
        for n in 0..<rows { try server.serve("/\(n).jpg", body: makeJPEG(width: 40 + n, height: 30)) }
        let caFile = strdup(server.certificatePath)
        defer { free(caFile) }
        let host = try CHost {
            $0.ca_file = UnsafePointer(caFile)
            $0.target_width = 16
        }
        XCTAssertEqual(host.setItems((0..<rows).map { server.url("/\($0).jpg") }), LAZYIMG_OK)
        XCTAssertEqual(lazyimg_set_visible_range(host.loader, 0, Int(rows)), LAZYIMG_OK)
        var tickets = 0
        for row in 0..<rows where host.request(row).status == LAZYIMG_PENDING { tickets += 1 }
        XCTAssertEqual(tickets, rows)
        host.dispatch(until: tickets)
        XCTAssertEqual(host.events.filter { $0.type == LAZYIMG_EVENT_IMAGE }.count, rows, "\(host.events)")

        let requests = server.requests
        XCTAssertEqual(requests.count, rows, "one request per row")
        XCTAssertEqual(Set(requests.map(\.connection)).count, 1, "one connection for the screen: \(requests)")
        XCTAssertEqual(Set(requests.map(\.stream)).count, rows, "a stream per row: \(requests)")
        XCTAssertEqual(host.stats().downloads_started, UInt64(rows))
    }

    /// A body stopped at its first pass resets its stream only: the other rows'
    /// streams on the connection go on (a stop that closed the connection would
    /// fail them, and their retries would open another).
    func testStreamsStoppedAtTheirFirstPassLeaveTheConnectionToTheOthers() throws {
        guard let server = try HTTP2TestServer() else {
            throw XCTSkip("nghttpd (Debian package nghttp2-server) or openssl could not run an HTTP/2 test server")
        }
        defer { server.stop() }
        let rows = 8
        let files = (0..<rows).map {
            makeNoiseJPEG(width: 768, height: 512, seed: UInt64($0 + 1), quality: 80, progressive: $0 % 2 == 0)
        }
        for (n, file) in files.enumerated() { try server.serve("/\(n).jpg", body: file) }
        let caFile = strdup(server.certificatePath)
        defer { free(caFile) }
        let host = try CHost {
            $0.ca_file = UnsafePointer(caFile)
            $0.target_width = 64
        }
        XCTAssertEqual(host.setItems((0..<rows).map { server.url("/\($0).jpg") }), LAZYIMG_OK)
        XCTAssertEqual(lazyimg_set_visible_range(host.loader, 0, Int(rows)), LAZYIMG_OK)
        for row in 0..<rows { XCTAssertEqual(host.request(row).status, LAZYIMG_PENDING) }
        host.dispatch(until: rows)
        XCTAssertEqual(host.events.filter { $0.type == LAZYIMG_EVENT_IMAGE }.count, rows, "\(host.events)")
        XCTAssertEqual(server.requests.count, rows, "one request per row, none retried")
        XCTAssertEqual(Set(server.requests.map(\.connection)).count, 1, "one connection: \(server.requests)")
        let stats = host.stats()
        XCTAssertEqual(stats.downloads_failed + stats.downloads_retried, 0)
        let progressive = stride(from: 0, to: rows, by: 2).reduce(0) { $0 + files[$1].count }
        XCTAssertLessThan(stats.bytes_downloaded, UInt64(files.reduce(0) { $0 + $1.count } - progressive / 2),
                          "the progressive files stopped early")
    }

    /// Streams paused for the memory budget resume (libcurl reopens their HTTP/2
    /// window): 4 rows of 4 MB through a 1 MiB budget all load.
    func testStreamsPausedForTheBudgetResume() throws {
        guard let server = try HTTP2TestServer() else {
            throw XCTSkip("nghttpd (Debian package nghttp2-server) or openssl could not run an HTTP/2 test server")
        }
        defer { server.stop() }
        let image = makeNoiseJPEG(width: 1100, height: 1100)
        XCTAssertGreaterThan(image.count, 4 << 20)
        for n in 0..<4 { try server.serve("/\(n).jpg", body: image) }
        let caFile = strdup(server.certificatePath)
        defer { free(caFile) }
        let host = try CHost {
            $0.ca_file = UnsafePointer(caFile)
            $0.target_width = 16
            $0.decode_queue_bytes = 1 << 20
        }
        XCTAssertEqual(host.setItems((0..<4).map { server.url("/\($0).jpg") }), LAZYIMG_OK)
        XCTAssertEqual(lazyimg_set_visible_range(host.loader, 0, 4), LAZYIMG_OK)
        for row in 0..<4 { XCTAssertEqual(host.request(row).status, LAZYIMG_PENDING) }
        host.dispatch(until: 4)
        XCTAssertEqual(host.events.filter { $0.type == LAZYIMG_EVENT_IMAGE }.count, 4, "\(host.events)")
        XCTAssertEqual(Set(server.requests.map(\.connection)).count, 1, "streams of one connection")
    }
}
#endif
