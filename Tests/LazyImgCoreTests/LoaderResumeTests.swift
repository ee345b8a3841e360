#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_4 // ThreadSanitizer group 4 (see the Makefile's tsan)
import Glibc
@testable import LazyImgCore
import TestSupport
import XCTest

/// The loader's side of resuming: a download cancelled because its row left the
/// window keeps its bytes, and when the row comes back the download asks for the
/// rest; the image is the whole file's, and the stats count what did not come again.
/// Real libcurl, a loopback server, a real JPEG decoder.
final class LoaderResumeTests: XCTestCase {
    /// The network, and the transfers the loader started on it, so a test can watch
    /// a body's progress before it moves the list.
    private final class WatchedTransport: DataLoading, @unchecked Sendable {
        let network: CurlDataLoader
        private let started = Locked<[TransferID]>([])

        init(_ network: CurlDataLoader) { self.network = network }

        var lastStarted: TransferID? { started.withLock { $0.last } }

        func start(_ id: TransferID, _ request: DataRequest,
                   completion: @escaping @Sendable (TransferID, DataResponse) -> Void) {
            started.withLock { $0.append(id) }
            network.start(id, request, completion: completion)
        }

        func cancel(_ id: TransferID) { network.cancel(id) }
        func cancelKeepingBytes(_ id: TransferID) { network.cancelKeepingBytes(id) }
        func progress(of id: TransferID) -> TransferProgress? { network.progress(of: id) }
        func shutdown() { network.shutdown() }
    }

    func testARowThatLeftAndCameBackResumesItsDownload() throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        let jpeg = makeNoiseJPEG(width: 320, height: 240)
        let part = jpeg.count / 2
        XCTAssertGreaterThan(jpeg.count - part, 16 << 10, "not nearly done: leaving stops it")
        server.serveRanges("/0.jpg", body: jpeg, validator: "\"j1\"", stallAfter: part)
        let transport = WatchedTransport(try XCTUnwrap(CurlDataLoader()))
        var config = LoaderConfiguration()
        config.decodeThreads = 1
        config.target = TargetSize(width: 64, height: 0)
        // The first request whole: a Range for the start would move the stall.
        config.fetchesFirstPassOnly = false
        let log = EventLog()
        let loader = try ImageLoader(configuration: config, transport: transport) { log.record($0) }
        defer { try? loader.shutdown() }
        try loader.setItems([server.url("/0.jpg")] + [String?](repeating: nil, count: 999))
        try loader.setVisibleRange(first: 0, count: 1)
        let first = try XCTUnwrap(try loader.request(row: 0).ticket)

        // Progress has no event of its own: watched, with a deadline.
        var received = 0
        for _ in 0..<10_000 where received < part {
            received = transport.lastStarted.flatMap { transport.progress(of: $0) }?.received ?? 0
            if received < part { _ = poll(nil, 0, 1) }
        }
        XCTAssertEqual(received, part)
        try loader.setVisibleRange(first: 500, count: 1)
        waitForEvent(first, loader, log)
        XCTAssertEqual(log.events(for: first).first?.error, .cancelled, "the row left")

        server.serveRanges("/0.jpg", body: jpeg, validator: "\"j1\"")
        try loader.setVisibleRange(first: 0, count: 1)
        let second = try XCTUnwrap(try loader.request(row: 0).ticket)
        waitForEvent(second, loader, log)
        let image = try XCTUnwrap(log.events(for: second).first?.image, "the row came back and got its image")
        XCTAssertEqual(image.width, 64)
        XCTAssertEqual(log.events(for: second).first?.httpStatus, 200)
        XCTAssertEqual(server.requests("/0.jpg").last?.header("Range"), "bytes=\(part)-")
        let stats = loader.stats
        XCTAssertEqual(stats.bytesResumed, UInt64(part))
        // A cancelled download reports no bytes; the resumed one brought the rest only.
        XCTAssertEqual(stats.bytesDownloaded, UInt64(jpeg.count - part))
        XCTAssertEqual(stats.downloadsCancelled, 1)
        XCTAssertEqual(stats.downloadsStarted, 2)
    }

    private func waitForEvent(_ ticket: UInt64, _ loader: ImageLoader, _ log: EventLog,
                              file: StaticString = #filePath, line: UInt = #line) {
        while log.events(for: ticket).isEmpty {
            guard (try? loader.waitForEvents(milliseconds: HangGuard.eventMilliseconds)) == true else {
                return XCTFail("no event for ticket \(ticket)", file: file, line: line)
            }
            _ = loader.dispatch(max: 0)
        }
    }
}
#endif
