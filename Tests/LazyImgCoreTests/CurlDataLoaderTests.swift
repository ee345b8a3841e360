#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_4 // ThreadSanitizer group 4 (see the Makefile's tsan)
import LazyImgCore
import TestSupport
import XCTest

/// CurlDataLoader against a real loopback server with real libcurl.
final class CurlDataLoaderTests: XCTestCase {
    private var server: HTTPTestServer!
    private var loader: CurlDataLoader!
    private var nextID: TransferID = 1

    /// Generous: only reached when something is broken.
    private let eventTimeout = 10_000

    override func setUpWithError() throws {
        server = try HTTPTestServer()
        loader = try XCTUnwrap(CurlDataLoader(maxConcurrentTransfers: 6))
    }

    override func tearDown() {
        loader?.shutdown()
        server?.stop()
        loader = nil
        server = nil
    }

    // MARK: Success

    func testBodyArrivesIntact() throws {
        let body = randomBytes(300_000)
        server.serve("/big", body: body)
        let response = try fetch(server.url("/big"))
        XCTAssertEqual(try response.result.get(), body)
        XCTAssertEqual(response.httpStatus, 200)
        XCTAssertEqual(response.bytesReceived, body.count)
    }

    func testChunkedBodyArrivesIntact() throws {
        let body = randomBytes(100_000)
        server.serve("/chunked", body: body, framing: .chunked)
        XCTAssertEqual(try fetch(server.url("/chunked")).result.get(), body)
    }

    func testBodyExactlyAtTheLimitIsAccepted() throws {
        let body = randomBytes(10_000)
        server.serve("/exact", body: body, framing: .chunked)
        let response = try fetch(server.url("/exact"), maxResponseBytes: 10_000)
        XCTAssertEqual(try response.result.get(), body)
    }

    func testSlowResponseWithinTheTimeoutArrives() throws {
        server.serveSlow("/slow", body: [4, 5, 6], delayMilliseconds: 200)
        let response = try fetch(server.url("/slow"), timeoutMilliseconds: 10_000)
        XCTAssertEqual(try response.result.get(), [4, 5, 6])
    }

    func testRedirectIsFollowed() throws {
        let body = randomBytes(1000)
        server.serve("/target", body: body)
        server.redirect("/moved", to: "/target")
        let response = try fetch(server.url("/moved"))
        XCTAssertEqual(try response.result.get(), body)
        XCTAssertEqual(response.httpStatus, 200)
        XCTAssertEqual(server.hits("/moved"), 1)
        XCTAssertEqual(server.hits("/target"), 1)
    }

    func testFileURLIsNeverGivenToLibcurl() throws {
        // libcurl's file handler blocks the network thread on a FIFO or a tty;
        // LocalFileLoader reads files instead.
        let file = try TemporaryFile(bytes: randomBytes(100))
        defer { file.remove() }
        XCTAssertEqual(try fetch(file.url).result.failure, .badURL)
    }

    func testUserAgentAndCustomHeadersArrive() throws {
        server.serve("/h", body: [1])
        _ = try fetch(DataRequest(url: server.url("/h"), userAgent: "lazyimg-test/1.0",
                                  headers: ["X-Lazy: yes", "Authorization: Bearer abc"]))
        let request = try XCTUnwrap(server.requests("/h").first)
        XCTAssertEqual(request.header("User-Agent"), "lazyimg-test/1.0")
        XCTAssertEqual(request.header("X-Lazy"), "yes")
        XCTAssertEqual(request.header("Authorization"), "Bearer abc")
        // Images are compressed already; asking for gzip would only cost CPU.
        XCTAssertNil(request.header("Accept-Encoding"))
    }

    // MARK: Failures

    func testNotFoundIsHTTPError() throws {
        let response = try fetch(server.url("/missing"))
        XCTAssertEqual(response.result.failure, .http(status: 404))
        XCTAssertEqual(response.httpStatus, 404)
    }

    func testServerErrorWithBodyIsHTTPError() throws {
        server.serve("/boom", body: randomBytes(5000), status: 500)
        let response = try fetch(server.url("/boom"))
        XCTAssertEqual(response.result.failure, .http(status: 500))
        XCTAssertEqual(response.httpStatus, 500)
    }

    func testTimeoutIsNetworkError() throws {
        server.serveGated("/never", body: [1])
        let response = try fetch(server.url("/never"), timeoutMilliseconds: 300)
        XCTAssertEqual(response.result.failure, .network)
        XCTAssertEqual(server.hits("/never"), 1)
    }

    func testRedirectHopsShareOneTimeout() throws {
        // Before: each hop had timeout_ms of its own, so a row could take 6 times it.
        server.redirect("/slow-redirect", to: "/slow-target", delayMilliseconds: 600)
        server.serveSlow("/slow-target", body: [1], delayMilliseconds: 600)
        let clock = MonotonicClock()
        let start = clock.nowMilliseconds
        let response = try fetch(server.url("/slow-redirect"), timeoutMilliseconds: 1000)
        XCTAssertEqual(response.result.failure, .network, "the second hop had 400 ms left, not 1000")
        XCTAssertEqual(server.hits("/slow-target"), 1)
        XCTAssertLessThan(clock.nowMilliseconds - start, 1_500)
    }

    // MARK: The download budget

    /// Starts `path` charged to `budget`, which already holds more than its limit in
    /// queued files: the body must wait, whatever the timeout, until they drain.
    private func fetchWhileTheBudgetIsSpent(_ path: String, body: [UInt8], timeoutMilliseconds: Int,
                                            pause: TimeInterval) throws -> DataResponse {
        server.serve(path, body: body)
        let budget = DownloadBudget(limit: 100_000)
        budget.queue(150_000)
        var request = DataRequest(url: ImageURL(server.url(path)), timeoutMilliseconds: timeoutMilliseconds)
        request.memoryBudget = budget
        let done = expectation(description: "completion")
        let early = expectation(description: "a completion before the budget has room")
        early.isInverted = true
        let box = Locked<DataResponse?>(nil)
        let id = makeID()
        loader.start(id, request) { _, response in
            box.withLock { $0 = response }
            early.fulfill()
            done.fulfill()
        }
        XCTAssertTrue(server.waitForHits(path, count: 1, timeoutMilliseconds: eventTimeout))
        wait(for: [early], timeout: pause)
        XCTAssertEqual(loader.progress(of: id)?.received, 0, "paused at its first bytes")
        budget.unqueue(150_000)
        wait(for: [done], timeout: 10)
        XCTAssertEqual(budget.heldBytes, 0, "the transfer gave its charge back")
        return try XCTUnwrap(box.withLock { $0 })
    }

    func testAFullBudgetPausesTheBodyUntilBytesComeBack() throws {
        let body = randomBytes(300_000)
        let response = try fetchWhileTheBudgetIsSpent("/budget", body: body, timeoutMilliseconds: 10_000, pause: 0.3)
        XCTAssertEqual(try response.result.get(), body)
    }

    func testTimeSpentPausedIsNotCountedAgainstTheTimeout() throws {
        let body = randomBytes(50_000)
        let response = try fetchWhileTheBudgetIsSpent("/paused", body: body, timeoutMilliseconds: 400, pause: 0.8)
        XCTAssertEqual(try response.result.get(), body, "paused for 800 ms, yet within its 400")
    }

    func testHonestContentLengthOverLimitIsTooLarge() throws {
        server.serve("/huge", body: randomBytes(100_000))
        let response = try fetch(server.url("/huge"), maxResponseBytes: 10_000)
        XCTAssertEqual(response.result.failure, .tooLarge)
    }

    func testChunkedBodyOverLimitIsTooLarge() throws {
        server.serve("/huge", body: randomBytes(100_000), framing: .chunked)
        let response = try fetch(server.url("/huge"), maxResponseBytes: 10_000)
        XCTAssertEqual(response.result.failure, .tooLarge)
        XCTAssertGreaterThan(response.bytesReceived, 10_000)
    }

    func testUnannouncedBodyOverLimitIsTooLarge() throws {
        server.serve("/huge", body: randomBytes(100_000), framing: .untilClose)
        let response = try fetch(server.url("/huge"), maxResponseBytes: 10_000)
        XCTAssertEqual(response.result.failure, .tooLarge)
    }

    func testUnderstatedContentLengthIsCutAtTheDeclaredLength() throws {
        // A server that lies low: libcurl stops at the announced length, so the limit
        // cannot be dodged this way; the client simply gets the announced bytes.
        let body = randomBytes(20_000)
        server.serve("/liar", body: body, framing: .declaredLength(1000))
        let response = try fetch(server.url("/liar"), maxResponseBytes: 10_000)
        XCTAssertEqual(try response.result.get(), Array(body.prefix(1000)))
    }

    func testConnectionClosedMidBodyIsNetworkError() throws {
        server.serveClosingMidBody("/cut", body: randomBytes(50_000), sentBytes: 20_000)
        let response = try fetch(server.url("/cut"))
        XCTAssertEqual(response.result.failure, .network)
    }

    func testTooManyRedirectsIsAProtocolError() throws {
        // Six hops; the loader follows at most five.
        for hop in 0..<6 {
            server.redirect("/hop\(hop)", to: "/hop\(hop + 1)")
        }
        server.serve("/hop6", body: [1])
        let response = try fetch(server.url("/hop0"))
        XCTAssertEqual(response.result.failure, .protocolViolation(.tooManyRedirects))
        XCTAssertEqual(response.httpStatus, 302)
        XCTAssertEqual(server.hits("/hop6"), 0)
    }

    func testFiveRedirectsAreFollowed() throws {
        for hop in 0..<5 {
            server.redirect("/hop\(hop)", to: "/hop\(hop + 1)")
        }
        server.serve("/hop5", body: [7])
        XCTAssertEqual(try fetch(server.url("/hop0")).result.get(), [7])
    }

    func testRedirectToLocalFileIsRefused() throws {
        let file = try TemporaryFile(bytes: [1, 2, 3])
        defer { file.remove() }
        server.redirect("/sneaky", to: file.url)
        let response = try fetch(server.url("/sneaky"))
        XCTAssertEqual(response.result.failure, .badURL)
    }

    func testUnsupportedOrMalformedURLsAreBadURL() throws {
        for url in ["ftp://127.0.0.1/image.jpg", "not a url", "example.com/a.jpg", "", "http://", "http://exa\0mple.com/"] {
            XCTAssertEqual(try fetch(url).result.failure, .badURL, url)
        }
    }

    func testHeaderLineBreaksAreRefusedBeforeSending() throws {
        let injected = DataRequest(url: server.url("/h"), headers: ["X-A: 1\r\nX-Evil: 1"])
        XCTAssertEqual(try fetch(injected).result.failure, .invalidArgument)
        let badAgent = DataRequest(url: server.url("/h"), userAgent: "ua\nX-Evil: 1")
        XCTAssertEqual(try fetch(badAgent).result.failure, .invalidArgument)
        XCTAssertEqual(server.totalHits, 0)
    }

    func testRefusedConnectionIsNetworkError() throws {
        let closedServer = try HTTPTestServer()
        let url = closedServer.url("/gone")
        closedServer.stop()
        XCTAssertEqual(try fetch(url).result.failure, .network)
    }

    // MARK: Connections and concurrency

    func testSequentialRequestsReuseOneConnection() throws {
        server.serve("/img", body: randomBytes(10_000))
        for _ in 0..<20 {
            XCTAssertNoThrow(try fetch(server.url("/img")).result.get())
        }
        XCTAssertEqual(server.hits("/img"), 20)
        XCTAssertEqual(server.connectionsAccepted, 1)
    }

    func testConcurrentRequestsAllComplete() throws {
        var bodies: [TransferID: [UInt8]] = [:]
        let recorder = CompletionRecorder()
        for index in 0..<10 {
            let body = randomBytes(20_000 + index)
            server.serve("/c\(index)", body: body)
            let id = makeID()
            bodies[id] = body
            loader.start(id, DataRequest(url: server.url("/c\(index)")), completion: recorder.record)
        }
        XCTAssertTrue(recorder.waitForCount(10, timeoutMilliseconds: eventTimeout))
        let responses = recorder.responses
        XCTAssertEqual(responses.count, 10)
        for (id, response) in responses {
            XCTAssertEqual(try response.result.get(), bodies[id])
        }
        XCTAssertLessThanOrEqual(server.connectionsAccepted, 6)
    }

    func testCancelledTransferNeverCompletesAndClosesItsConnection() throws {
        server.serveGated("/held", body: [1])
        server.serve("/after", body: [2])
        let recorder = CompletionRecorder()
        let heldID = makeID()
        loader.start(heldID, DataRequest(url: server.url("/held")), completion: recorder.record)
        XCTAssertTrue(server.waitForHits("/held", count: 1, timeoutMilliseconds: eventTimeout))

        loader.cancel(heldID)
        XCTAssertTrue(server.waitForClosedConnections(count: 1, timeoutMilliseconds: eventTimeout))
        server.release("/held")

        // A later transfer completes on the same thread; the cancelled one must not.
        let afterID = makeID()
        loader.start(afterID, DataRequest(url: server.url("/after")), completion: recorder.record)
        XCTAssertTrue(recorder.waitForCount(1, timeoutMilliseconds: eventTimeout))
        XCTAssertEqual(recorder.responses.map(\.id), [afterID])
    }

    func testCancelBeforeTheThreadStartsItNeverCompletes() throws {
        server.serve("/quick", body: [1])
        let recorder = CompletionRecorder()
        let cancelledID = makeID()
        loader.start(cancelledID, DataRequest(url: server.url("/quick")), completion: recorder.record)
        loader.cancel(cancelledID)
        let laterID = makeID()
        loader.start(laterID, DataRequest(url: server.url("/quick")), completion: recorder.record)
        XCTAssertTrue(recorder.waitForCount(1, timeoutMilliseconds: eventTimeout))
        XCTAssertEqual(recorder.responses.map(\.id), [laterID])
    }

    func testShutdownWithTransfersInFlightReturnsWithoutCompletions() throws {
        server.serveGated("/held", body: [1])
        let recorder = CompletionRecorder()
        for _ in 0..<3 {
            loader.start(makeID(), DataRequest(url: server.url("/held")), completion: recorder.record)
        }
        XCTAssertTrue(server.waitForHits("/held", count: 3, timeoutMilliseconds: eventTimeout))

        let clock = MonotonicClock()
        let before = clock.nowMilliseconds
        loader.shutdown()
        // Not a timing test: a hang would be minutes (the default timeout is 15 s).
        XCTAssertLessThan(clock.nowMilliseconds - before, 5_000)
        loader.shutdown()  // idempotent

        server.release("/held")
        loader.start(makeID(), DataRequest(url: server.url("/held")), completion: recorder.record)
        XCTAssertTrue(server.waitForClosedConnections(count: 3, timeoutMilliseconds: eventTimeout))
        XCTAssertEqual(recorder.responses.count, 0)
    }

    func testShutdownFromACompletionDoesNotDeadlock() throws {
        server.serve("/one", body: [1])
        let recorder = CompletionRecorder()
        let loader = try XCTUnwrap(self.loader)
        loader.start(makeID(), DataRequest(url: server.url("/one"))) { id, response in
            loader.shutdown()
            recorder.record(id, response)
        }
        XCTAssertTrue(recorder.waitForCount(1, timeoutMilliseconds: eventTimeout))
        loader.shutdown()
    }

    // MARK: Helpers

    private func makeID() -> TransferID {
        defer { nextID += 1 }
        return nextID
    }

    private func fetch(_ url: String, timeoutMilliseconds: Int = 15_000,
                       maxResponseBytes: Int = 32 << 20) throws -> DataResponse {
        try fetch(DataRequest(url: url, timeoutMilliseconds: timeoutMilliseconds, maxResponseBytes: maxResponseBytes))
    }

    private func fetch(_ request: DataRequest) throws -> DataResponse {
        let recorder = CompletionRecorder()
        loader.start(makeID(), request, completion: recorder.record)
        guard recorder.waitForCount(1, timeoutMilliseconds: eventTimeout) else {
            XCTFail("no completion for \(request.url)")
            throw LoaderError.network
        }
        return try XCTUnwrap(recorder.responses.first?.response)
    }

    private func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }
}

/// Collects completions from the network thread and lets the test wait for them.
private final class CompletionRecorder: @unchecked Sendable {
    // @unchecked: `received` is guarded by `condition`.
    private let condition = Condition()
    private var received: [(id: TransferID, response: DataResponse)] = []

    var responses: [(id: TransferID, response: DataResponse)] {
        condition.locked { received }
    }

    var record: @Sendable (TransferID, DataResponse) -> Void {
        { [self] id, response in
            condition.locked {
                received.append((id, response))
                condition.broadcast()
            }
        }
    }

    func waitForCount(_ count: Int, timeoutMilliseconds: Int) -> Bool {
        let clock = MonotonicClock()
        let deadline = clock.nowMilliseconds + Int64(timeoutMilliseconds)
        return condition.locked {
            while received.count < count {
                let remaining = deadline - clock.nowMilliseconds
                guard remaining > 0 else { return false }
                _ = condition.wait(milliseconds: Int(remaining))
            }
            return true
        }
    }
}

private extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
#endif
