#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_4 // ThreadSanitizer group 4 (see the Makefile's tsan)
import CLazyImgHeader
import TestSupport
import XCTest

/// Damaged files through the C API (issue 20, section 5): each is an IMAGE event
/// whose image says, through lazyimg_image_is_damaged, that it was damaged; the
/// same image answers memory hits, and a second process finds the same answer in
/// the disk cache's thumbnail. No new failure reaches the host.
final class DamagedImageEndToEndTests: XCTestCase {
    private var server: HTTPTestServer!
    private var directory: TemporaryDirectory!
    private var directoryCString: UnsafeMutablePointer<CChar>!

    override func setUpWithError() throws {
        server = try HTTPTestServer()
        directory = try TemporaryDirectory()
        directoryCString = strdup(directory.path)
        let jpeg = makeJPEG(width: 64, height: 64, pattern: .fineChecker)
        // Half the bytes: a baseline JPEG cut inside its scan.
        server.serve("/cut.jpg", body: Array(jpeg.prefix(jpeg.count - (jpeg.count - 700) / 2)))
        let text = Array("Comment".utf8) + [0] + Array("hi".utf8)
        server.serve("/crc.png", body: insertingPNGChunk("tEXt", text, into: makePNG(width: 16, height: 16), damagedCRC: true))
        server.serve("/ok.jpg", body: jpeg)
    }

    override func tearDown() {
        server.stop()
        directory.remove()
        free(directoryCString)
    }

    private var urls: [String] { ["/cut.jpg", "/crc.png", "/ok.jpg"].map { server.url($0) } }

    private func load(_ configure: @escaping (inout lazyimg_config) -> Void = { _ in }, rows: Range<Int>? = nil) throws
        -> CHost {
        let host = try CHost { config in
            config.target_width = 32
            config.target_height = 32
            configure(&config)
        }
        XCTAssertEqual(host.setItems(urls), LAZYIMG_OK)
        let rows = rows ?? urls.indices
        for row in rows { XCTAssertEqual(host.request(row).status, LAZYIMG_PENDING) }
        host.dispatch(until: rows.count)
        return host
    }

    func testDamagedFilesAreImagesThatSayTheyAreDamaged() throws {
        let host = try load()
        let events = host.events.sorted { $0.row < $1.row }
        XCTAssertEqual(events.map(\.status), [LAZYIMG_OK, LAZYIMG_OK, LAZYIMG_OK])
        XCTAssertEqual(events.map(\.type), [LAZYIMG_EVENT_IMAGE, LAZYIMG_EVENT_IMAGE, LAZYIMG_EVENT_IMAGE])
        XCTAssertEqual(events.map(\.damaged), [1, 1, 0])
        XCTAssertEqual(events.map(\.message), ["", "", ""])
        // A memory hit hands out the same image, flag and all.
        var image: OpaquePointer?
        var ticket: UInt64 = 0
        XCTAssertEqual(lazyimg_request(host.loader, 0, &image, &ticket), LAZYIMG_OK)
        XCTAssertEqual(lazyimg_image_is_damaged(image), 1)
        lazyimg_image_release(image)
        XCTAssertEqual(lazyimg_image_is_damaged(nil), 0)
    }

    func testEncodedOutputIsNotExamined() throws {
        let host = try load { $0.output = LAZYIMG_OUTPUT_ENCODED }
        XCTAssertEqual(host.events.map(\.damaged), [0, 0, 0])
    }

    func testTheDiskCacheKeepsTheDamage() throws {
        let path = directoryCString
        let cached: (inout lazyimg_config) -> Void = { config in config.disk_cache_dir = UnsafePointer(path) }
        // One file on its own first: the disk cache's static tables are made on first
        // use through the Swift runtime's once, which ThreadSanitizer cannot see into,
        // so two decode threads storing the first entries at once look like a race.
        XCTAssertEqual(try load(cached, rows: 2..<3).destroy(), LAZYIMG_OK)
        let first = try load(cached, rows: 0..<2)
        XCTAssertEqual(first.destroy(), LAZYIMG_OK)
        // A second loader on the directory: thumbnails from disk, no download.
        let hits = server.hits("/cut.jpg")
        let second = try load(cached)
        let events = second.events.sorted { $0.row < $1.row }
        XCTAssertEqual(events.map(\.source), [LAZYIMG_SOURCE_DISK, LAZYIMG_SOURCE_DISK, LAZYIMG_SOURCE_DISK])
        XCTAssertEqual(events.map(\.damaged), [1, 1, 0])
        XCTAssertEqual(server.hits("/cut.jpg"), hits)
    }
}
#endif
