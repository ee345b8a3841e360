#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_4 // ThreadSanitizer group 4 (see the Makefile's tsan)
import Glibc
@testable import LazyImgCore
import TestSupport
import XCTest

/// A download stopped early keeps the start of its body; the next download of the
/// same request asks for the rest with Range and If-Range, over real libcurl and a
/// loopback server, and whatever the server answers, the body is the resource's
/// bytes or a clean failure, never a splice of parts that do not fit.
final class ResumableDownloadTests: XCTestCase {
    private var server: HTTPTestServer!
    private var transport: CurlDataLoader!
    private var nextID: TransferID = 0
    private let body = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 7) }
    private let etag = "\"v1\""

    override func setUpWithError() throws {
        server = try HTTPTestServer()
        transport = try XCTUnwrap(CurlDataLoader())
    }

    override func tearDown() {
        transport.shutdown()
        server.stop()
    }

    /// Starts `request`, waits until `bytes` of its body came, and cancels it, keeping
    /// them unless told not to. The route must stall there (`stallAfter`).
    private func downloadPart(_ request: DataRequest, bytes: Int, keeping: Bool = true,
                              file: StaticString = #filePath, line: UInt = #line) {
        nextID += 1
        let id = nextID
        transport.start(id, request) { _, _ in XCTFail("a cancelled transfer completed", file: file, line: line) }
        waitForPart(id, on: transport, bytes: bytes, file: file, line: line)
        if keeping { transport.cancelKeepingBytes(id) } else { transport.cancel(id) }
    }

    /// Progress has no event of its own: watched, with a deadline.
    private func waitForPart(_ id: TransferID, on loader: any DataLoading, bytes: Int,
                             file: StaticString = #filePath, line: UInt = #line) {
        var received = 0
        for _ in 0..<10_000 where received < bytes {
            received = loader.progress(of: id)?.received ?? 0
            if received < bytes { _ = poll(nil, 0, 1) }
        }
        XCTAssertEqual(received, bytes, "the part arrived", file: file, line: line)
    }

    private func download(_ request: DataRequest) -> DataResponse {
        nextID += 1
        let done = expectation(description: "completed")
        let response = Locked<DataResponse?>(nil)
        transport.start(nextID, request) { _, finished in
            response.withLock { $0 = finished }
            done.fulfill()
        }
        wait(for: [done], timeout: 15)
        return response.withLock { $0 } ?? DataResponse(result: .failure(.misuse), httpStatus: 0)
    }

    private func request(_ path: String, headers: [String] = []) -> DataRequest {
        DataRequest(url: ImageURL(server.url(path)), headers: headers)
    }

    private func bodyOf(_ response: DataResponse) -> [UInt8]? {
        if case .success(let bytes) = response.result { bytes } else { nil }
    }

    func testTheServerSeesARangeRequestAndServesTheRest() {
        server.serveRanges("/a", body: body, validator: etag, stallAfter: 60_000)
        downloadPart(request("/a"), bytes: 60_000)
        server.serveRanges("/a", body: body, validator: etag)
        let response = download(request("/a"))
        XCTAssertEqual(bodyOf(response), body, "the kept bytes and the rest, in order")
        XCTAssertEqual(response.httpStatus, 200, "the whole resource, as a 200 would bring it")
        XCTAssertEqual(response.resumedBytes, 60_000)
        XCTAssertEqual(response.bytesReceived, 40_000, "only the rest came again")
        let asked = server.requests("/a")
        XCTAssertEqual(asked.count, 2)
        XCTAssertNil(asked[0].header("Range"))
        XCTAssertEqual(asked[1].header("Range"), "bytes=60000-")
        XCTAssertEqual(asked[1].header("If-Range"), etag)
    }

    func testAChangedETagStartsOver() {
        server.serveRanges("/a", body: body, validator: etag, stallAfter: 60_000)
        downloadPart(request("/a"), bytes: 60_000)
        let changed = Array(body.reversed())
        server.serveRanges("/a", body: changed, validator: "\"v2\"")
        let response = download(request("/a"))
        XCTAssertEqual(bodyOf(response), changed, "the new version, whole, and none of the old")
        XCTAssertEqual(response.resumedBytes, 0)
        XCTAssertEqual(response.bytesReceived, changed.count)
        XCTAssertEqual(server.requests("/a").last?.header("If-Range"), etag, "asked, with the old validator")
    }

    func testAServerThatIgnoresRangeStartsOver() {
        server.serveRanges("/a", body: body, validator: etag, stallAfter: 60_000)
        downloadPart(request("/a"), bytes: 60_000)
        server.serveRanges("/a", body: body, validator: etag, ranges: .ignore)
        let response = download(request("/a"))
        XCTAssertEqual(bodyOf(response), body)
        XCTAssertEqual(response.resumedBytes, 0)
        XCTAssertEqual(response.bytesReceived, body.count)
        XCTAssertEqual(server.requests("/a").last?.header("Range"), "bytes=60000-")
    }

    func testALyingContentRangeIsACleanRestart() {
        server.serveRanges("/a", body: body, validator: etag, stallAfter: 60_000)
        downloadPart(request("/a"), bytes: 60_000)
        server.serveRanges("/a", body: body, validator: etag, ranges: .misplace(by: 1_000))
        let response = download(request("/a"))
        XCTAssertEqual(bodyOf(response), body, "the body from its first byte, not a splice")
        XCTAssertEqual(response.resumedBytes, 0)
        let asked = server.requests("/a")
        XCTAssertEqual(asked.count, 3, "the part, the Range refused, the whole again")
        XCTAssertNil(asked.last?.header("Range"), "started over without Range")
        XCTAssertEqual(response.bytesReceived, body.count, "the refused answer was stopped at its headers")
    }

    func testATooLongRestIsCutAtTheLimitOrStartedOver() {
        server.serveRanges("/a", body: body, validator: etag, stallAfter: 60_000)
        downloadPart(request("/a"), bytes: 60_000)
        server.serveRanges("/a", body: body, validator: etag, ranges: .overlong(extra: 50_000))
        var limited = request("/a")
        limited.maxResponseBytes = body.count
        let cut = download(limited)
        guard case .failure(.tooLarge) = cut.result else { return XCTFail("\(cut.result)") }
        XCTAssertLessThanOrEqual(cut.bytesReceived, 40_000 + 16_384, "stopped at the limit, kept bytes counted in it")

        server.serveRanges("/a", body: body, validator: etag, stallAfter: 60_000)
        downloadPart(request("/a"), bytes: 60_000)
        server.serveRanges("/a", body: body, validator: etag, ranges: .overlong(extra: 50_000))
        let unlimited = download(request("/a"))
        XCTAssertEqual(bodyOf(unlimited), body, "a rest longer than announced is not spliced on")
        XCTAssertNil(server.requests("/a").last?.header("Range"))
    }

    func testMaxResponseBytesCountsTheKeptBytesWithTheRest() {
        server.serveRanges("/a", body: body, validator: etag, stallAfter: 60_000)
        downloadPart(request("/a"), bytes: 60_000)
        server.serveRanges("/a", body: body, validator: etag)
        var limited = request("/a")
        limited.maxResponseBytes = body.count - 1
        let response = download(limited)
        guard case .failure(.tooLarge) = response.result else { return XCTFail("\(response.result)") }
        XCTAssertNil(server.requests("/a").last?.header("Range"), "40 kB more would be within the limit; the body is not")
    }

    func testPartialBodiesAreKeptUnderTheCredentialsTheyCameWith() {
        let alice = ["Authorization: Bearer alice"]
        server.serveRanges("/a", body: body, validator: etag, stallAfter: 60_000)
        downloadPart(request("/a", headers: alice), bytes: 60_000)
        server.serveRanges("/a", body: body, validator: etag)
        let anonymous = download(request("/a"))
        XCTAssertEqual(anonymous.resumedBytes, 0)
        XCTAssertNil(server.requests("/a").last?.header("Range"), "no credentials: nothing fetched with Alice's")
        let bob = download(request("/a", headers: ["Authorization: Bearer bob"]))
        XCTAssertEqual(bob.resumedBytes, 0)
        XCTAssertNil(server.requests("/a").last?.header("Range"), "nor for other credentials")
        let again = download(request("/a", headers: alice))
        XCTAssertEqual(bodyOf(again), body)
        XCTAssertEqual(again.resumedBytes, 60_000, "the same credentials continue it")
    }

    func testTheBudgetDropsTheOldestPartialBodiesFirst() throws {
        transport.shutdown()
        transport = try XCTUnwrap(CurlDataLoader(keptPartialBytes: 150_000))
        for path in ["/a", "/b", "/c"] {
            server.serveRanges(path, body: body, validator: etag, stallAfter: 60_000)
            downloadPart(request(path), bytes: 60_000)
            server.serveRanges(path, body: body, validator: etag)
        }
        XCTAssertEqual(download(request("/a")).resumedBytes, 0, "the oldest made room for the third")
        XCTAssertNil(server.requests("/a").last?.header("Range"))
        for path in ["/b", "/c"] {
            let response = download(request(path))
            XCTAssertEqual(bodyOf(response), body)
            XCTAssertEqual(response.resumedBytes, 60_000, path)
        }
    }

    func testABodyTheNetworkCutOffIsResumedByTheNextTry() {
        server.serveRanges("/a", body: body, validator: etag, cutAfter: 70_000)
        let cut = download(request("/a"))
        guard case .failure(.network) = cut.result else { return XCTFail("\(cut.result)") }
        let response = download(request("/a"))
        XCTAssertEqual(bodyOf(response), body)
        XCTAssertEqual(response.resumedBytes, 70_000)
        XCTAssertEqual(server.requests("/a").last?.header("Range"), "bytes=70000-")
    }

    func testOnlyAStrongValidatorIsSentInIfRange() {
        // A weak ETag may name two versions of the bytes: If-Range may not carry it.
        server.serveRanges("/weak", body: body, validator: "W/\"v1\"", stallAfter: 60_000)
        downloadPart(request("/weak"), bytes: 60_000)
        server.serveRanges("/weak", body: body, validator: "W/\"v1\"")
        XCTAssertEqual(download(request("/weak")).resumedBytes, 0)
        XCTAssertNil(server.requests("/weak").last?.header("Range"))
        // A Last-Modified date a minute older than the response is strong.
        let modified = "Sun, 06 Nov 1994 08:49:37 GMT"
        server.serveRanges("/dated", body: body, validator: modified, lastModified: true, stallAfter: 60_000)
        downloadPart(request("/dated"), bytes: 60_000)
        server.serveRanges("/dated", body: body, validator: modified, lastModified: true)
        let response = download(request("/dated"))
        XCTAssertEqual(bodyOf(response), body)
        XCTAssertEqual(response.resumedBytes, 60_000)
        XCTAssertEqual(server.requests("/dated").last?.header("If-Range"), modified)
    }

    func testTheRangeGoesOnlyToTheURLThatServedTheBytes() {
        server.redirect("/moved", to: server.url("/a"))
        server.serveRanges("/a", body: body, validator: etag, stallAfter: 60_000)
        downloadPart(request("/moved"), bytes: 60_000)
        server.serveRanges("/a", body: body, validator: etag)
        let response = download(request("/moved"))
        XCTAssertEqual(bodyOf(response), body)
        XCTAssertEqual(response.resumedBytes, 60_000)
        XCTAssertNil(server.requests("/moved").last?.header("Range"), "not to the redirect")
        XCTAssertEqual(server.requests("/a").last?.header("Range"), "bytes=60000-")
    }

    func testASharedTransferKeepsItsBytesWhenItsLastSubscriberLeavesSo() throws {
        let coalescer = TransferCoalescer(network: transport)
        let (list, detail) = (coalescer.makeClient(), coalescer.makeClient())
        defer { list.shutdown(); detail.shutdown() }
        server.serveRanges("/a", body: body, validator: etag, stallAfter: 60_000)
        list.start(1, request("/a")) { _, _ in XCTFail("cancelled") }
        detail.start(1, request("/a")) { _, _ in XCTFail("cancelled") }
        waitForPart(1, on: list, bytes: 60_000)
        list.cancelKeepingBytes(1)
        XCTAssertEqual(detail.progress(of: 1)?.received, 60_000, "still running for the other loader")
        detail.cancelKeepingBytes(1)
        server.serveRanges("/a", body: body, validator: etag)
        let done = expectation(description: "completed")
        let whole = body
        detail.start(2, request("/a")) { _, response in
            XCTAssertEqual(response.resumedBytes, 60_000)
            if case .success(let bytes) = response.result { XCTAssertEqual(bytes, whole) } else { XCTFail("\(response.result)") }
            done.fulfill()
        }
        wait(for: [done], timeout: 15)
        XCTAssertEqual(server.hits("/a"), 2, "one shared transfer, then the rest")
        // Before the coalescer goes: its last reference must not be dropped by a
        // completion on the network thread while tearDown joins that thread.
        transport.shutdown()
    }

    func testContentRangeIsReadStrictly() {
        let range = ContentRange("bytes 60000-99999/100000")
        XCTAssertEqual([range?.first, range?.last, range?.complete], [60_000, 99_999, 100_000])
        XCTAssertEqual(ContentRange("BYTES 0-0/*")?.complete, nil, "the unit in any case; the length untold")
        for lie in ["bytes 5-4/10", "bytes 0-10/10", "bytes -1-4/10", "bytes +1-4/10", "bytes 0-4/", "bytes 0-4",
                    "items 0-4/10", "bytes 0-4/10 ", "bytes 1-9223372036854775807/9223372036854775808",
                    "bytes 0-1234567890123456789/1234567890123456790", "bytes */10", ""] {
            XCTAssertNil(ContentRange(lie), lie)
        }
    }

    func testAPlainCancelKeepsNothing() {
        server.serveRanges("/a", body: body, validator: etag, stallAfter: 60_000)
        downloadPart(request("/a"), bytes: 60_000, keeping: false)
        server.serveRanges("/a", body: body, validator: etag)
        XCTAssertEqual(download(request("/a")).resumedBytes, 0)
        XCTAssertNil(server.requests("/a").last?.header("Range"))
    }
}
#endif
