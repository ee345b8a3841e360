import LazyImgCore
import TestSupport
import XCTest

/// What a hostile server can try against the network layer, with real libcurl
/// against the loopback server: lies about sizes, redirects that move secrets or
/// downgrade TLS.
final class HostileServerTests: XCTestCase {
    private var server: HTTPTestServer!
    private var loader: CurlDataLoader!

    override func setUpWithError() throws {
        server = try HTTPTestServer()
        loader = try XCTUnwrap(CurlDataLoader(maxConcurrentTransfers: 2))
    }

    override func tearDown() {
        loader?.shutdown()
        server?.stop()
    }

    /// One transfer, waited for on an expectation.
    private func fetch(_ request: DataRequest) -> DataResponse? {
        let done = expectation(description: "completion")
        let box = ResponseBox()
        loader.start(1, request) { _, response in
            box.response = response
            done.fulfill()
        }
        wait(for: [done], timeout: 15)
        return box.response
    }

    func testAnnounced64GiBWithNoLimitDoesNotAllocateIt() throws {
        // Before: the body reserved min(Content-Length, limit) bytes up front, and with
        // no useful limit that was 64 GiB: the allocation aborted the whole process.
        server.serve("/huge", body: [1, 2, 3], framing: .declaredLength(64 << 30))
        let response = try XCTUnwrap(fetch(DataRequest(url: server.url("/huge"), maxResponseBytes: Int.max)))
        XCTAssertEqual(response.error, .network, "the body ended short of its announced length")
        XCTAssertEqual(response.bytesReceived, 3)
    }
}

private final class ResponseBox: @unchecked Sendable {
    // Written on the network thread before the expectation is fulfilled, read after.
    var response: DataResponse?
}

private extension DataResponse {
    var error: LoaderError? {
        if case .failure(let error) = result { return error }
        return nil
    }
}
