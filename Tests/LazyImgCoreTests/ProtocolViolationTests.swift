#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_4 // ThreadSanitizer group 4 (see the Makefile's tsan)
import LazyImgCore
import TestSupport
import XCTest

/// Replies that break HTTP, from a loopback server that sends raw bytes, through
/// real libcurl: each fails as the server's fault (a protocol violation that says
/// which), not as an allocation failure, a bad URL or an image that is not one.
final class ProtocolViolationTests: XCTestCase {
    private var server: HTTPTestServer!
    private var loader: CurlDataLoader!
    private var nextID: TransferID = 1

    override func setUpWithError() throws {
        server = try HTTPTestServer()
        loader = try XCTUnwrap(CurlDataLoader(maxConcurrentTransfers: 2))
    }

    override func tearDown() {
        loader.shutdown()
        server.stop()
    }

    private func fetch(_ reply: String, validators: [String] = []) throws -> DataResponse {
        let path = "/reply\(nextID)"
        server.serveRaw(path, Array(reply.utf8))
        var request = DataRequest(url: ImageURL(server.url(path)))
        request.validators = validators
        let done = expectation(description: path)
        let box = Locked<DataResponse?>(nil)
        loader.start(nextID, request) { _, response in
            box.withLock { $0 = response }
            done.fulfill()
        }
        nextID += 1
        wait(for: [done], timeout: 20)
        return try XCTUnwrap(box.withLock { $0 })
    }

    private func violation(_ reply: String, validators: [String] = []) throws -> ProtocolViolation? {
        guard case .failure(.protocolViolation(let violation)) = try fetch(reply, validators: validators).result
        else { return nil }
        return violation
    }

    func testHugeHeadersAreTheServersFaultNotAnAllocationFailure() throws {
        // Before: a line over libcurl's 100 KB failed as NO_MEMORY, 400 KB of lines as NETWORK.
        let line = "HTTP/1.1 200 OK\r\nX-Big: " + String(repeating: "a", count: 10 << 20) + "\r\nContent-Length: 1\r\n\r\nx"
        XCTAssertEqual(try violation(line), .headersTooLarge)
        let cookie = "HTTP/1.1 200 OK\r\nSet-Cookie: a=" + String(repeating: "b", count: 1 << 20)
            + "\r\nContent-Length: 1\r\n\r\nx"
        XCTAssertEqual(try violation(cookie), .headersTooLarge)
        let many = "HTTP/1.1 200 OK\r\n" + String(repeating: "X-A: " + String(repeating: "c", count: 1000) + "\r\n", count: 300)
            + "Content-Length: 1\r\n\r\nx"
        XCTAssertEqual(try violation(many), .headersTooLarge, "all headers together over 256 KiB")
        let fine = "HTTP/1.1 200 OK\r\n" + String(repeating: "X-A: " + String(repeating: "c", count: 1000) + "\r\n", count: 200)
            + "Content-Length: 1\r\n\r\nx"
        XCTAssertEqual(try fetch(fine).result.get(), [UInt8(ascii: "x")], "200 KB of headers pass")
    }

    func testRepliesWithoutAnHTTPStatusLineAreNotHTTP() throws {
        // Before: BAD_URL, as if the host had given a wrong URL.
        XCTAssertEqual(try violation("\u{89}PNG not a status line at all"), .notHTTP, "HTTP/0.9")
        XCTAssertEqual(try violation("HTTP/1.1 199 Odd\r\nContent-Length: 5\r\n\r\nhello"), .notHTTP)
        XCTAssertEqual(try violation("HTTP/1.1 2x0 OK\r\nContent-Length: 5\r\n\r\nhello"), .notHTTP)
        XCTAssertEqual(try violation("HTTP/1.1 600 Beyond\r\nContent-Length: 5\r\n\r\nhello"), .badStatus(600))
    }

    func testStatusesThatCarryNoImageForThisRequest() throws {
        // Before: success with 0 bytes, which failed as "not an image (0 bytes)".
        XCTAssertEqual(try violation("HTTP/1.1 204 No Content\r\n\r\n"), .noBodyForThisRequest(204))
        XCTAssertEqual(try violation("HTTP/1.1 205 Reset Content\r\nContent-Length: 0\r\n\r\n"),
                       .noBodyForThisRequest(205))
        XCTAssertEqual(try violation("HTTP/1.1 206 Partial\r\nContent-Range: bytes 0-4/99\r\nContent-Length: 5\r\n\r\nhello"),
                       .noBodyForThisRequest(206))
        XCTAssertEqual(try violation("HTTP/1.1 304 Not Modified\r\n\r\n"), .noBodyForThisRequest(304))
        let revalidated = try fetch("HTTP/1.1 304 Not Modified\r\n\r\n", validators: ["If-None-Match: \"v1\""])
        XCTAssertEqual(try revalidated.result.get(), [], "a 304 for a copy's validators answers them")
        XCTAssertEqual(revalidated.httpStatus, 304)
    }

    func testRedirectsThatCannotBeFollowed() throws {
        XCTAssertEqual(try violation("HTTP/1.1 302 Found\r\nContent-Length: 5\r\n\r\nhello"), .unfollowableRedirect(302))
        XCTAssertEqual(try violation("HTTP/1.1 300 Choices\r\nLocation: /x\r\nContent-Length: 5\r\n\r\nhello"),
                       .unfollowableRedirect(300))
    }

    func testAnHTTP10ReplyIsStillFine() throws {
        XCTAssertEqual(try fetch("HTTP/1.0 200 OK\r\n\r\nhello").result.get(), Array("hello".utf8))
    }
}
#endif
