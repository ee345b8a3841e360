#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_3 // ThreadSanitizer group 3 (see the Makefile's tsan)
import Glibc
import LazyImgCore
import TestSupport
import XCTest

/// file:// URLs, read by LocalFileLoader on its own thread: regular files only,
/// without ever blocking on a FIFO or a device, within the size limit.
final class LocalFileLoaderTests: XCTestCase {
    private var loader: LocalFileLoader!
    private var nextID: TransferID = 1

    override func setUpWithError() throws {
        loader = try XCTUnwrap(LocalFileLoader())
    }

    override func tearDown() {
        loader?.shutdown()
    }

    private func fetch(_ url: String, maxResponseBytes: Int = 32 << 20) -> DataResponse? {
        let done = expectation(description: "completion for \(url)")
        let box = Locked<DataResponse?>(nil)
        loader.start(nextID, DataRequest(url: url, maxResponseBytes: maxResponseBytes)) { _, response in
            box.withLock { $0 = response }
            done.fulfill()
        }
        nextID += 1
        wait(for: [done], timeout: 10)
        return box.withLock { $0 }
    }

    private func error(_ response: DataResponse?) -> LoaderError? {
        guard case .failure(let error)? = response?.result else { return nil }
        return error
    }

    func testRegularFileIsRead() throws {
        let body = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let file = try TemporaryFile(bytes: body)
        defer { file.remove() }
        let response = try XCTUnwrap(fetch(file.url))
        XCTAssertEqual(try response.result.get(), body)
        XCTAssertEqual(response.httpStatus, 0)
        XCTAssertEqual(try fetch("file://localhost" + file.path)?.result.get(), body)
    }

    func testFIFODeviceAndDirectoryFailWithoutBlocking() throws {
        let fifo = "/tmp/lazyimg-fifo-\(getpid())"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        defer { unlink(fifo) }
        // No writer ever opens the FIFO: a blocking open or read would hang here.
        for url in ["file://" + fifo, "file:///dev/null", "file:///dev/zero", "file:///tmp"] {
            XCTAssertEqual(error(fetch(url)), .io, url)
        }
    }

    func testLimitHoldsAndBadPathsAreBadURLs() throws {
        let file = try TemporaryFile(bytes: [UInt8](repeating: 7, count: 10_001))
        defer { file.remove() }
        XCTAssertEqual(error(fetch(file.url, maxResponseBytes: 10_000)), .tooLarge)
        XCTAssertEqual(error(fetch("file:///nonexistent-\(getpid())")), .io)
        for url in ["file://otherhost/etc/hosts", "file:///tmp/%zz", "file:///tmp/a%00b"] {
            XCTAssertEqual(error(fetch(url)), .badURL, url)
        }
    }

    func testEscapedPathIsDecoded() throws {
        let file = try TemporaryFile(bytes: [1, 2, 3])
        defer { file.remove() }
        XCTAssertTrue(file.path.hasPrefix("/tmp/"))
        let url = "file:///%74mp%2F" + file.path.dropFirst("/tmp/".count) + "?query#fragment"
        XCTAssertEqual(try fetch(url)?.result.get(), [1, 2, 3])
    }
}
#endif
