#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_2 // ThreadSanitizer group 2 (see the Makefile's tsan)
import XCTest
@testable import LazyImgCore
import TestSupport

/// One download per URL across a session's loaders also when the second asks just
/// after the first's download ended: the session answers it with that response.
final class TransferReuseTests: XCTestCase {
    private let url = "http://example.test/a.jpg"
    private func request(_ url: String, headers: [String] = []) -> DataRequest {
        DataRequest(url: ImageURL(url), headers: headers)
    }

    /// A coalescer on a fake network and clock, two clients, and the first client's
    /// download of `url` ended with `body` and `cacheControl`.
    private func ended(body: [UInt8] = [1, 2, 3], httpStatus: Int = 200, cacheControl: String? = nil, vary: String? = nil)
        -> (network: FakeTransport, clock: ManualClock, coalescer: TransferCoalescer, second: any DataLoading)
    {
        let network = FakeTransport()
        let clock = ManualClock()
        let coalescer = TransferCoalescer(network: network, clock: clock)
        let first = coalescer.makeClient()
        let got = expectation(description: "the first client's completion")
        first.start(1, request(url)) { _, _ in got.fulfill() }
        network.complete(url, with: .success(body), httpStatus: httpStatus,
                         cacheHeaders: HTTPCacheHeaders(cacheControl: cacheControl, vary: vary))
        wait(for: [got], timeout: 10)
        return (network, clock, coalescer, coalescer.makeClient())
    }

    private let noCompletion: @Sendable (TransferID, DataResponse) -> Void = { _, _ in }

    func testARequestJustAfterTheDownloadEndedGetsItsResponse() {
        let (network, clock, _, second) = ended()
        clock.advance(by: TransferCoalescer.reuseMilliseconds - 1)
        let reused = second.startOrReuse(7, request(url), completion: noCompletion)
        XCTAssertEqual(try reused?.result.get(), [1, 2, 3])
        XCTAssertEqual(network.startedURLs, [url], "nothing started again")
        // `start` itself always starts: reuse is the caller's choice.
        second.start(8, request(url), completion: noCompletion)
        XCTAssertEqual(network.startedURLs, [url, url])
    }

    func testOnlyWhatADiskCacheWouldServeIsReused() {
        for (status, cacheControl, why) in [(404, nil, "an error"), (200, "no-store", "no-store"),
                                            (200, "no-cache", "to be revalidated"), (200, "max-age=0", "stale")] {
            let (network, _, _, second) = ended(httpStatus: status, cacheControl: cacheControl)
            XCTAssertNil(second.startOrReuse(7, request(url), completion: noCompletion), why)
            XCTAssertEqual(network.startedURLs, [url, url], why)
        }
        let (varying, _, _, next) = ended(cacheControl: "max-age=60", vary: "Accept, *")
        XCTAssertNil(next.startOrReuse(7, request(url), completion: noCompletion), "Vary: * matches no other request")
        XCTAssertEqual(varying.startedURLs, [url, url])
        let (network, _, _, second) = ended(cacheControl: "max-age=60")
        XCTAssertNotNil(second.startOrReuse(7, request(url), completion: noCompletion), "fresh for a minute")
        XCTAssertNil(second.startOrReuse(8, request(url, headers: ["X-A: b"]), completion: noCompletion),
                     "another request: other headers")
        XCTAssertEqual(network.startedURLs, [url, url])
    }

    func testReuseEndsAfterItsWindowWhenForgottenAndPastItsBytes() {
        var (network, clock, coalescer, second) = ended()
        clock.advance(by: TransferCoalescer.reuseMilliseconds)
        XCTAssertNil(second.startOrReuse(7, request(url), completion: noCompletion), "too late")
        XCTAssertEqual(network.startedURLs.count, 2)

        (network, clock, coalescer, second) = ended()
        second.forgetRecentResponses(of: ImageURL("http://example.test/other.jpg"))
        XCTAssertNotNil(second.startOrReuse(7, request(url), completion: noCompletion))
        second.forgetRecentResponses(of: ImageURL(url))
        XCTAssertNil(second.startOrReuse(8, request(url), completion: noCompletion), "forgotten")

        // The newest bytes are kept: a second body that fills the budget pushes the first out.
        (network, clock, coalescer, second) = ended()
        let big = "http://example.test/big.jpg"
        let done = expectation(description: "the big download")
        let third = coalescer.makeClient()
        third.start(2, request(big)) { _, _ in done.fulfill() }
        network.complete(big, with: .success([UInt8](repeating: 0, count: TransferCoalescer.reuseBytes)))
        wait(for: [done], timeout: 10)
        XCTAssertNil(second.startOrReuse(7, request(url), completion: noCompletion), "pushed out")
        XCTAssertNotNil(second.startOrReuse(8, request(big), completion: noCompletion))
    }

    func testASecondLoaderAskingAfterTheFirstsDownloadEndedDoesNotDownloadAgain() throws {
        let (network, (list, listEvents), (detail, detailEvents)) = try listAndDetail(rows: [url])
        XCTAssertTrue(try list.request(row: 0).isPending)
        network.complete(url, with: .success([1, 2, 3, 4]))
        deliver(list, listEvents, until: 1)
        XCTAssertEqual(listEvents.all.first?.image?.width, 4)

        XCTAssertTrue(try detail.request(row: 0).isPending)
        deliver(detail, detailEvents, until: 1)
        XCTAssertEqual(detailEvents.all.first?.image?.width, 4, "the list's download, decoded for the detail")
        XCTAssertEqual(network.startedURLs, [url], "one download for both loaders")
        try list.shutdown()
        try detail.shutdown()
    }

    func testRemovingTheURLOrClearingTheDiskCacheForgetsTheKeptResponse() throws {
        let other = "http://example.test/b.jpg"
        let (network, (list, listEvents), (detail, detailEvents)) = try listAndDetail(rows: [url, other])
        for row in 0..<2 { XCTAssertTrue(try list.request(row: row).isPending) }
        network.complete(url, with: .success([1, 2, 3, 4]))
        network.complete(other, with: .success([1, 2]))
        deliver(list, listEvents, until: 2)

        try list.removeFromDiskCache(url: ImageURL(url))
        XCTAssertTrue(try detail.request(row: 0).isPending)
        XCTAssertEqual(network.startedURLs, [url, other, url], "removed: downloaded again")
        try list.clearDiskCache()
        XCTAssertTrue(try detail.request(row: 1).isPending)
        XCTAssertEqual(network.startedURLs, [url, other, url, other], "cleared: downloaded again")
        network.complete(url, with: .success([1]))
        network.complete(other, with: .success([1]))
        deliver(detail, detailEvents, until: 2)
        try list.shutdown()
        try detail.shutdown()
    }

    /// A session on a fake network with two loaders, a list (64 px) and its detail
    /// view (512 px), both showing `rows`.
    private func listAndDetail(rows: [String])
        throws -> (FakeTransport, (ImageLoader, EventLog), (ImageLoader, EventLog))
    {
        let network = FakeTransport()
        let session = try ImageSession(diskCacheDirectory: nil, diskCacheBytes: 0, maxConcurrentDownloads: 6,
                                       transport: network)
        let list = try loader(in: session, box: 64)
        let detail = try loader(in: session, box: 512)
        try list.0.setItems(rows)
        try detail.0.setItems(rows)
        network.waitsFor(list.0)
        network.waitsFor(detail.0)
        return (network, list, detail)
    }

    private func loader(in session: ImageSession, box: Int) throws -> (ImageLoader, EventLog) {
        var config = LoaderConfiguration()
        config.session = session
        config.target = TargetSize(width: box, height: box)
        config.decodeThreads = 1
        let log = EventLog()
        let loader = try ImageLoader(configuration: config, makeDecoder: { WidthFromBytesDecoder() }) { log.record($0) }
        return (loader, log)
    }

    private func deliver(_ loader: ImageLoader, _ log: EventLog, until count: Int) {
        while log.all.count < count {
            guard (try? loader.waitForEvents(milliseconds: HangGuard.eventMilliseconds)) == true else {
                return XCTFail("timed out with \(log.all.count) of \(count) events")
            }
            _ = loader.dispatch(max: 0)
        }
    }
}
#endif
