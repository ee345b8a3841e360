#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_4 // ThreadSanitizer group 4 (see the Makefile's tsan)
import Glibc
import LazyImgCore
import TestSupport
import XCTest

/// CurlDataLoader reports how far a running body got, for the nearly-done rule, and
/// so does a session's client of it.
final class CurlTransferProgressTests: XCTestCase {
    /// Progress has no event of its own: watch it, with a deadline, until `bytes` of
    /// the body have arrived.
    private func progressOnceReceived(_ bytes: Int, _ transport: any DataLoading, _ id: TransferID)
        -> TransferProgress?
    {
        var progress: TransferProgress?
        for _ in 0..<10_000 {
            progress = transport.progress(of: id)
            if progress?.received == bytes { break }
            _ = poll(nil, 0, 1)
        }
        return progress
    }

    func testProgressCountsTheBodySoFarAgainstItsAnnouncedLengthThenEnds() throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        let transport = try XCTUnwrap(CurlDataLoader())
        defer { transport.shutdown() }
        server.serveStalling("/part", body: [UInt8](repeating: 7, count: 100_000), sentBytes: 80_000)
        let done = expectation(description: "completed")
        transport.start(1, DataRequest(url: server.url("/part"))) { _, response in
            XCTAssertEqual(response.bytesReceived, 100_000)
            done.fulfill()
        }
        let progress = progressOnceReceived(80_000, transport, 1)
        XCTAssertEqual(progress, TransferProgress(received: 80_000, expected: 100_000))
        XCTAssertNil(transport.progress(of: 2), "unknown transfer")
        server.release("/part")
        wait(for: [done], timeout: 10)
        XCTAssertNil(transport.progress(of: 1), "finished transfers report nothing")
    }

    func testASessionsClientsSeeTheProgressOfTheTransferTheyShare() throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        let coalescer = TransferCoalescer(network: try XCTUnwrap(CurlDataLoader()))
        let (list, detail) = (coalescer.makeClient(), coalescer.makeClient())
        defer { list.shutdown(); detail.shutdown() }
        server.serveStalling("/part", body: [UInt8](repeating: 7, count: 100_000), sentBytes: 80_000)
        let done = expectation(description: "completed")
        done.expectedFulfillmentCount = 2
        list.start(1, DataRequest(url: server.url("/part"))) { _, _ in done.fulfill() }
        detail.start(7, DataRequest(url: server.url("/part"))) { _, _ in done.fulfill() }
        let progress = progressOnceReceived(80_000, list, 1)
        XCTAssertEqual(progress, TransferProgress(received: 80_000, expected: 100_000))
        XCTAssertEqual(detail.progress(of: 7), progress, "one transfer, one progress")
        XCTAssertNil(detail.progress(of: 1), "IDs are per client")
        server.release("/part")
        wait(for: [done], timeout: 10)
        XCTAssertNil(list.progress(of: 1), "finished transfers report nothing")
        XCTAssertEqual(server.hits("/part"), 1)
    }

    func testACancelledTransferReportsNothing() throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        let transport = try XCTUnwrap(CurlDataLoader())
        defer { transport.shutdown() }
        server.serveGated("/held", body: [1, 2, 3])
        transport.start(1, DataRequest(url: server.url("/held"))) { _, _ in }
        // The network thread makes a transfer's counters when it begins it: by the
        // time the server has the request.
        XCTAssertTrue(server.waitForHits("/held", count: 1, timeoutMilliseconds: 10_000))
        XCTAssertEqual(transport.progress(of: 1), TransferProgress(received: 0, expected: nil))
        transport.cancel(1)
        XCTAssertNil(transport.progress(of: 1))
    }
}
#endif
