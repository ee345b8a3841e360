#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_4 // ThreadSanitizer group 4 (see the Makefile's tsan)
import CLazyImgHeader
import CSlowResolver
import Glibc
import LazyImgCore
import TestSupport
import XCTest

/// A name that takes 20 s to resolve, through the C API, real libcurl and the test
/// program's own getaddrinfo (CSlowResolver: names under .lazyimg.test answer
/// 127.0.0.1 after the delay set for them). libcurl 7.88 joins its resolver thread on
/// the network thread when such a transfer times out, is removed or cleaned up, which
/// froze every row of the loader until the lookup ended.
final class SlowResolverTests: XCTestCase {
    private var server: HTTPTestServer!
    private let clock = MonotonicClock()
    /// Long enough that no test waits it out: each one releases it in tearDown.
    private let stuckMilliseconds = 20_000

    override func setUpWithError() throws {
        server = try HTTPTestServer()
        server.serve("/a.jpg", body: makeJPEG(width: 8, height: 8))
        server.serve("/b.jpg", body: makeJPEG(width: 9, height: 9))
    }

    override func tearDown() {
        lazyimg_slow_resolver_release()
        server.stop()
    }

    private func url(_ host: String, _ path: String) -> String {
        "http://\(host):\(server.port)\(path)"
    }

    /// `proxy` nil: none, whatever the environment says ("", so names are looked up here).
    private func loader(timeoutMilliseconds: UInt32 = 1000, proxy: StaticString = "") throws -> CHost {
        try CHost {
            $0.timeout_ms = timeoutMilliseconds
            $0.proxy = UnsafeRawPointer(proxy.utf8Start).assumingMemoryBound(to: CChar.self)
        }
    }

    /// Milliseconds `body` took.
    private func time(_ body: () -> Void) -> Int64 {
        let start = clock.nowMilliseconds
        body()
        return clock.nowMilliseconds - start
    }

    private func waitForLookups(_ count: Int) -> Bool {
        let deadline = clock.nowMilliseconds + 5_000
        while lazyimg_slow_resolver_waiting() < count {
            guard clock.nowMilliseconds < deadline else { return false }
            usleep(1_000)
        }
        return true
    }

    func testTheSlowRowTimesOutAndOtherHostsLoadMeanwhile() throws {
        lazyimg_slow_resolver_set_delay("stuck1.lazyimg.test", Int32(stuckMilliseconds))
        let host = try loader()
        XCTAssertEqual(host.setItems([url("stuck1.lazyimg.test", "/a.jpg"), url("quick1.lazyimg.test", "/b.jpg")]),
                       LAZYIMG_OK)
        XCTAssertEqual(host.request(0).status, LAZYIMG_PENDING)
        let timedOut = time { XCTAssertTrue(host.dispatch(until: 1, withinMilliseconds: 8_000)) }
        XCTAssertEqual(host.events.first?.status, LAZYIMG_E_NETWORK, "\(host.events)")
        // Tried 4 times (retries), each cut at timeout_ms, the lookup shared.
        XCTAssertLessThan(timedOut, 8_000, "the row timed out while its name was still resolving")
        // Still stuck: the other host's row must not wait for it.
        XCTAssertEqual(lazyimg_slow_resolver_waiting(), 1)
        XCTAssertEqual(host.request(1).status, LAZYIMG_PENDING)
        let other = time { XCTAssertTrue(host.dispatch(until: 2, withinMilliseconds: 5_000)) }
        XCTAssertEqual(host.events.last?.type, LAZYIMG_EVENT_IMAGE, "\(host.events)")
        XCTAssertLessThan(other, 1_000)
        XCTAssertLessThan(time { XCTAssertEqual(host.destroy(), LAZYIMG_OK) }, 500, "destroy waited for the lookup")
    }

    func testCancellingARowWhoseNameIsResolvingNeverWaitsForIt() throws {
        lazyimg_slow_resolver_set_delay("stuck2.lazyimg.test", Int32(stuckMilliseconds))
        let host = try loader(timeoutMilliseconds: 15_000)
        XCTAssertEqual(host.setItems([url("stuck2.lazyimg.test", "/a.jpg"), url("quick2.lazyimg.test", "/b.jpg")]),
                       LAZYIMG_OK)
        let ticket = host.request(0).ticket
        XCTAssertTrue(waitForLookups(1))
        XCTAssertEqual(lazyimg_cancel(host.loader, ticket), LAZYIMG_OK)
        XCTAssertEqual(host.request(1).status, LAZYIMG_PENDING)
        let other = time { XCTAssertTrue(host.dispatch(until: 2, withinMilliseconds: 5_000)) }
        XCTAssertEqual(host.events.map(\.status), [LAZYIMG_E_CANCELLED, LAZYIMG_OK], "\(host.events)")
        XCTAssertLessThan(other, 1_000, "the cancel froze the network thread")
        XCTAssertEqual(lazyimg_slow_resolver_waiting(), 1)
        XCTAssertLessThan(time { XCTAssertEqual(host.destroy(), LAZYIMG_OK) }, 500, "destroy waited for the lookup")
    }

    func testDestroyWhileANameResolvesReturnsAtOnce() throws {
        lazyimg_slow_resolver_set_delay("stuck3.lazyimg.test", Int32(stuckMilliseconds))
        let host = try loader(timeoutMilliseconds: 15_000)
        XCTAssertEqual(host.setItems([url("stuck3.lazyimg.test", "/a.jpg")]), LAZYIMG_OK)
        XCTAssertEqual(host.request(0).status, LAZYIMG_PENDING)
        XCTAssertTrue(waitForLookups(1))
        XCTAssertLessThan(time { XCTAssertEqual(host.destroy(), LAZYIMG_OK) }, 500, "destroy waited for the lookup")
        XCTAssertEqual(host.events.map(\.status), [LAZYIMG_E_CANCELLED])
    }

    func testLookupsThatHangAreBoundedAndRowsBehindThemStillTimeOut() throws {
        let names = (0..<12).map { "stuck-many\($0).lazyimg.test" }
        for name in names { lazyimg_slow_resolver_set_delay(name, Int32(stuckMilliseconds)) }
        let host = try loader()
        XCTAssertEqual(host.setItems(names.map { url($0, "/a.jpg") }), LAZYIMG_OK)
        XCTAssertEqual(lazyimg_set_visible_range(host.loader, 0, names.count), LAZYIMG_OK)
        for row in names.indices { XCTAssertEqual(host.request(row).status, LAZYIMG_PENDING) }
        XCTAssertTrue(host.dispatch(until: names.count, withinMilliseconds: 12_000))
        XCTAssertEqual(Set(host.events.map(\.status)), [LAZYIMG_E_NETWORK])
        XCTAssertEqual(lazyimg_slow_resolver_most_waiting(), Int32(CurlDataLoader.maxLookups),
                       "lookups run at once up to the bound, never more")
        XCTAssertLessThan(time { XCTAssertEqual(host.destroy(), LAZYIMG_OK) }, 500)
    }

    func testARedirectToANameThatHangsTimesOutWithoutHoldingBackOtherRows() throws {
        lazyimg_slow_resolver_set_delay("stuck4.lazyimg.test", Int32(stuckMilliseconds))
        server.redirect("/moved.jpg", to: url("stuck4.lazyimg.test", "/a.jpg"))
        let host = try loader()
        XCTAssertEqual(host.setItems([server.url("/moved.jpg"), url("quick4.lazyimg.test", "/b.jpg")]), LAZYIMG_OK)
        XCTAssertEqual(host.request(0).status, LAZYIMG_PENDING)
        XCTAssertTrue(waitForLookups(1))
        XCTAssertEqual(host.request(1).status, LAZYIMG_PENDING)
        XCTAssertTrue(host.dispatch(until: 2, withinMilliseconds: 8_000))
        XCTAssertEqual(host.events.map(\.row), [1, 0], "the other row first, the redirected one after its timeout")
        XCTAssertEqual(host.events.map(\.status), [LAZYIMG_OK, LAZYIMG_E_NETWORK])
        XCTAssertLessThan(time { XCTAssertEqual(host.destroy(), LAZYIMG_OK) }, 500)
    }

    func testRowsOfOneHostShareOneLookup() throws {
        lazyimg_slow_resolver_set_delay("shared.lazyimg.test", 200)
        let host = try loader(timeoutMilliseconds: 10_000)
        let urls = (0..<5).map { url("shared.lazyimg.test", "/a.jpg?row=\($0)") }
        XCTAssertEqual(host.setItems(urls), LAZYIMG_OK)
        XCTAssertEqual(lazyimg_set_visible_range(host.loader, 0, urls.count), LAZYIMG_OK)
        for row in urls.indices { XCTAssertEqual(host.request(row).status, LAZYIMG_PENDING) }
        XCTAssertTrue(host.dispatch(until: urls.count, withinMilliseconds: 10_000))
        XCTAssertEqual(Set(host.events.map(\.status)), [LAZYIMG_OK])
        XCTAssertEqual(lazyimg_slow_resolver_calls("shared.lazyimg.test"), 1)
        XCTAssertEqual(server.requests("/a.jpg").compactMap { $0.header("Host") },
                       Array(repeating: "shared.lazyimg.test:\(server.port)", count: urls.count),
                       "the URL's own host name goes to the server, whoever looked it up")
    }

    /// Through a proxy libcurl looks up the proxy's name itself: CURLOPT_QUICK_EXIT
    /// makes it forget a lookup that hangs instead of joining its thread.
    func testAProxyWhoseNameHangsTimesOutAndDestroyReturnsAtOnce() throws {
        lazyimg_slow_resolver_set_delay("stuck-proxy.lazyimg.test", Int32(stuckMilliseconds))
        let host = try loader(proxy: "http://stuck-proxy.lazyimg.test:9")
        XCTAssertEqual(host.setItems([server.url("/a.jpg")]), LAZYIMG_OK)
        XCTAssertEqual(host.request(0).status, LAZYIMG_PENDING)
        XCTAssertTrue(host.dispatch(until: 1, withinMilliseconds: 8_000), "libcurl joined its resolver thread")
        XCTAssertEqual(host.events.map(\.status), [LAZYIMG_E_NETWORK])
        XCTAssertGreaterThan(lazyimg_slow_resolver_waiting(), 0, "the proxy's lookups still hang")
        XCTAssertLessThan(time { XCTAssertEqual(host.destroy(), LAZYIMG_OK) }, 500)
    }
}
#endif
