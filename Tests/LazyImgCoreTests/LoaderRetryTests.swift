#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_1 // ThreadSanitizer group 1 (see the Makefile's tsan)
import XCTest
@testable import LazyImgCore

/// Retries of transient failures, failure expiry and the per-host back-off, on the
/// fake clock and transport. After moving the fake clock a test waits for the
/// scheduler's next step, which fires its timer when the moment it asked for has
/// come on that clock.
final class LoaderRetryTests: XCTestCase {
    private let url0 = "http://example.test/0.jpg"

    /// No breaker in the way: these tests are about one URL's retries.
    private func harness(jitter: @escaping @Sendable () -> Double = { 0.5 }) throws -> PolicyHarness {
        try PolicyHarness(configure: { $0.hostBackoff.threshold = 100 }, jitter: jitter)
    }

    private func advance(_ h: PolicyHarness, by milliseconds: Int64) {
        h.clock.advance(by: milliseconds)
        h.settle()
    }

    func testTransientFailuresRetryWithDoublingJitteredBackoffThenFail() throws {
        let h = try harness()
        try h.loader.setItems(PolicyHarness.urls(1))
        let ticket = try XCTUnwrap(h.loader.request(row: 0).ticket)
        // Jitter 0.5 of the doubled delay's upper half: 250 -> 187, 500 -> 375, 1000 -> 750.
        let failures: [(LoaderError, Int)] = [(.network, 0), (.http(status: 503), 503), (.http(status: 429), 429)]
        for (attempt, (failure, wait)) in zip(failures, [187, 375, 750] as [Int64]).enumerated() {
            XCTAssertTrue(h.transport.complete(url0, with: .failure(failure.0), httpStatus: failure.1))
            advance(h, by: wait - 1)
            XCTAssertEqual(h.transport.startedURLs.count, attempt + 1, "retry \(attempt + 1) waits \(wait) ms")
            advance(h, by: 1)
            XCTAssertEqual(h.transport.startedURLs.count, attempt + 2, "retry \(attempt + 1) after \(wait) ms")
        }
        XCTAssertEqual(h.log.all.count, 0, "no event while retries remain")
        XCTAssertTrue(h.transport.complete(url0, with: .failure(.http(status: 502)), httpStatus: 502))
        h.deliver(until: 1)
        XCTAssertEqual(h.log.events(for: ticket).map(\.error), [.http(status: 502)], "one event, the last failure")
        advance(h, by: 10_000)
        XCTAssertEqual(h.transport.startedURLs.count, 4, "3 retries, then no more")
        XCTAssertEqual(h.stats.downloadsRetried, 3)
        XCTAssertEqual(h.stats.downloadsFailed, 4)
    }

    func testJitterSpreadsTheWaitOverTheUpperHalfOfTheDelay() {
        let policy = RetryPolicy()
        XCTAssertEqual(policy.delay(beforeRetry: 1, retryAfterMilliseconds: nil, unit: 0), 125)
        XCTAssertEqual(policy.delay(beforeRetry: 1, retryAfterMilliseconds: nil, unit: 0.999), 249)
        XCTAssertEqual(policy.delay(beforeRetry: 3, retryAfterMilliseconds: nil, unit: 0), 500)
        XCTAssertEqual(policy.delay(beforeRetry: 40, retryAfterMilliseconds: nil, unit: 1), 8_000, "capped")
        XCTAssertEqual(policy.delay(beforeRetry: 1, retryAfterMilliseconds: 5_000, unit: 0), 5_000)
        XCTAssertEqual(policy.delay(beforeRetry: 1, retryAfterMilliseconds: 3_600_000, unit: 0), 30_000,
                       "Retry-After is capped")
    }

    func testTheJitterSourceIsAskedOncePerRetry() throws {
        let h = try harness(jitter: { 0 })
        try h.loader.setItems(PolicyHarness.urls(1))
        _ = try h.loader.request(row: 0)
        XCTAssertTrue(h.transport.complete(url0, with: .failure(.network), httpStatus: 0))
        advance(h, by: 124)
        XCTAssertEqual(h.transport.startedURLs.count, 1)
        advance(h, by: 1)
        XCTAssertEqual(h.transport.startedURLs.count, 2, "jitter 0: half the 250 ms delay")
    }

    func testRetryAfterFromTheServerIsHonoured() throws {
        let h = try harness()
        try h.loader.setItems(PolicyHarness.urls(1))
        _ = try h.loader.request(row: 0)
        XCTAssertTrue(h.transport.complete(url0, with: .failure(.http(status: 429)), httpStatus: 429,
                                           retryAfterMilliseconds: 3_000))
        advance(h, by: 2_999)
        XCTAssertEqual(h.transport.startedURLs.count, 1)
        advance(h, by: 1)
        XCTAssertEqual(h.transport.startedURLs.count, 2)
    }

    func testNotFoundForbiddenAndUndecodableBytesDoNotRetry() throws {
        let h = try harness()
        try h.loader.setItems(PolicyHarness.urls(3))
        let tickets = try (0..<3).map { try XCTUnwrap(h.loader.request(row: $0).ticket) }
        XCTAssertTrue(h.transport.complete(url0, with: .failure(.http(status: 404)), httpStatus: 404))
        XCTAssertTrue(h.transport.complete("http://example.test/1.jpg", with: .failure(.http(status: 403)),
                                           httpStatus: 403))
        XCTAssertTrue(h.transport.complete("http://example.test/2.jpg", with: .success([])))  // corrupt
        h.deliver(until: 3)
        XCTAssertEqual(tickets.map { h.log.events(for: $0).first?.error },
                       [.http(status: 404), .http(status: 403), .decode])
        advance(h, by: 60_000)
        XCTAssertEqual(h.transport.startedURLs.count, 3)
        XCTAssertEqual(h.stats.downloadsRetried, 0)
    }

    func testATLSFailureIsNotRetried() throws {
        // A certificate that does not verify would only fail again.
        let h = try harness()
        try h.loader.setItems(PolicyHarness.urls(1))
        let ticket = try XCTUnwrap(h.loader.request(row: 0).ticket)
        XCTAssertTrue(h.transport.complete(url0, with: .failure(.tls), httpStatus: 0))
        h.deliver(until: 1)
        XCTAssertEqual(h.log.events(for: ticket).first?.error, .tls)
        advance(h, by: 10_000)
        XCTAssertEqual(h.transport.startedURLs.count, 1)
    }

    func testAFailureRecordExpiresSoTheURLLoadsWhenTheNetworkIsBack() throws {
        let h = try PolicyHarness(configure: {
            $0.retryPolicy.maxRetries = 0
            $0.retryAfterMilliseconds = 5_000
        })
        try h.loader.setItems(PolicyHarness.urls(1))
        _ = try h.loader.request(row: 0)
        XCTAssertTrue(h.transport.complete(url0, with: .failure(.network), httpStatus: 0))
        h.deliver(until: 1)
        h.clock.advance(by: 4_999)
        XCTAssertThrowsError(try h.loader.request(row: 0)) { XCTAssertEqual($0 as? LoaderError, .network) }
        h.clock.advance(by: 1)
        let ticket = try XCTUnwrap(h.loader.request(row: 0).ticket, "the record expired")
        XCTAssertTrue(h.transport.complete(url0, with: .success([7, 7, 7])))
        h.deliver(until: 2)
        XCTAssertEqual(h.log.events(for: ticket).first?.image?.width, 3)
    }

    func testRepeatedFailuresPauseTheHostWhileOtherHostsLoad() throws {
        let h = try PolicyHarness(maxConcurrent: 4, configure: {
            $0.retryPolicy.maxRetries = 5
            $0.hostBackoff.threshold = 3
            $0.hostBackoff.pauseMilliseconds = 1_000
        })
        let dead = (0..<3).map { "http://dead.test/\($0).jpg" }
        let alive = "http://alive.test/0.jpg"
        try h.loader.setItems(dead + [alive])
        for row in 0..<3 { _ = try h.loader.request(row: row) }
        for url in dead { XCTAssertTrue(h.transport.complete(url, with: .failure(.network), httpStatus: 0)) }
        _ = try h.loader.request(row: 3)
        XCTAssertEqual(h.transport.liveURLs, [alive], "the paused host does not hold slots")

        advance(h, by: 999)
        XCTAssertEqual(h.transport.startedURLs.count, 4, "retries wait for the pause, not only their backoff")
        advance(h, by: 1)
        XCTAssertEqual(h.transport.liveURLs, Set(dead + [alive]), "the pause ended: probes go out")

        // A probe fails: the host pauses again, twice as long.
        XCTAssertTrue(h.transport.complete(dead[0], with: .failure(.network), httpStatus: 0))
        advance(h, by: 1_999)
        XCTAssertFalse(h.transport.liveURLs.contains(dead[0]))
        advance(h, by: 1)
        XCTAssertTrue(h.transport.liveURLs.contains(dead[0]))

        // A success closes the breaker: the next failure only backs off its own URL.
        XCTAssertTrue(h.transport.complete(dead[1], with: .success([1])))
        XCTAssertTrue(h.transport.complete(dead[2], with: .failure(.network), httpStatus: 0))
        advance(h, by: 1_000)
        XCTAssertTrue(h.transport.liveURLs.contains(dead[2]))
    }

    func testHostsAreTheURLsAuthority() {
        func host(_ url: String) -> String? {
            ImageURL(url).httpAuthority.map { String(decoding: $0, as: UTF8.self) }
        }
        XCTAssertEqual(host("http://a.test/x.jpg"), "a.test")
        XCTAssertEqual(host("https://u@a.test:8443?q"), "u@a.test:8443")
        XCTAssertEqual(host("http://a.test"), "a.test")
        XCTAssertNil(host("file:///tmp/x.jpg"))
        XCTAssertNil(host("nonsense"))
    }
}
#endif
