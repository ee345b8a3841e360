#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_1 // ThreadSanitizer group 1 (see the Makefile's tsan)
import CLazyImgHeader
import Glibc
import TestSupport
import XCTest

/// What the host asks for through the config: fit or fill, RGBA or premultiplied
/// BGRA, pixels or the encoded file; every format over HTTP; failure messages.
final class OutputOptionsTests: XCTestCase {
    private var server: HTTPTestServer!

    override func setUpWithError() throws {
        server = try HTTPTestServer()
    }

    override func tearDown() {
        server.stop()
    }

    /// Loads `paths` with the config `configure` makes and returns each row's event,
    /// with the image retained (the caller releases).
    private func load(_ paths: [String], _ configure: @escaping (inout lazyimg_config) -> Void)
        throws -> (host: CHost, images: [OpaquePointer?])
    {
        let host = try CHost(configure)
        XCTAssertEqual(host.setItems(paths.map { server.url($0) }), LAZYIMG_OK)
        for row in paths.indices { XCTAssertEqual(host.request(row).status, LAZYIMG_PENDING) }
        host.dispatch(until: paths.count)
        let images: [OpaquePointer?] = paths.indices.map { row in
            var image: OpaquePointer?
            _ = lazyimg_lookup(host.loader, row, &image)
            return image
        }
        return (host, images)
    }

    func testFillCoversTheBoxAndCropsTheCentre() throws {
        // 300x100: left third red, middle green, right third blue.
        let stripes = TestPattern.grid(columns: 3, rows: 1, colours: [[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255]])
        server.serve("/wide.png", body: makePNG(width: 300, height: 100, pattern: stripes))
        let (host, images) = try load(["/wide.png"]) { config in
            config.target_width = 50
            config.target_height = 50
            config.fit = LAZYIMG_FIT_FILL
        }
        defer { images.forEach(lazyimg_image_release) }
        let image = try XCTUnwrap(images[0])
        XCTAssertEqual([lazyimg_image_width(image), lazyimg_image_height(image)], [50, 50], "exactly the box")
        let pixels = try XCTUnwrap(lazyimg_image_pixels(image))
        let stride = lazyimg_image_stride(image)
        for x in [0, 25, 49] {
            let p = 25 * stride + x * 4
            XCTAssertEqual([pixels[p], pixels[p + 1], pixels[p + 2]], [0, 255, 0], "only the green middle at x=\(x)")
        }
        _ = host
    }

    func testPremultipliedBGRA() throws {
        server.serve("/half.png", body: makePNG(width: 8, height: 8, pattern: .solid(red: 200, green: 100, blue: 50, alpha: 128)))
        let (host, images) = try load(["/half.png"]) { $0.pixel_format = LAZYIMG_PIXEL_BGRA8_PREMULTIPLIED }
        defer { images.forEach(lazyimg_image_release) }
        let image = try XCTUnwrap(images[0])
        XCTAssertEqual(lazyimg_image_pixel_format(image), LAZYIMG_PIXEL_BGRA8_PREMULTIPLIED)
        let p = try XCTUnwrap(lazyimg_image_pixels(image))
        // B, G, R multiplied by 128/255, then A.
        XCTAssertEqual(Double(p[0]), 25, accuracy: 1)
        XCTAssertEqual(Double(p[1]), 50, accuracy: 1)
        XCTAssertEqual(Double(p[2]), 100, accuracy: 1)
        XCTAssertEqual(p[3], 128)
        _ = host
    }

    func testEncodedOutputHandsOutTheFileAsDownloaded() throws {
        let png = makePNG(width: 20, height: 10)
        server.serve("/raw.png", body: png)
        server.serve("/other.png", body: makePNG(width: 20, height: 10))
        let (host, images) = try load(["/raw.png"]) { $0.output = LAZYIMG_OUTPUT_ENCODED }
        defer { images.forEach(lazyimg_image_release) }
        let image = try XCTUnwrap(images[0])
        var size = 0
        let data = try XCTUnwrap(lazyimg_image_encoded_data(image, &size))
        XCTAssertEqual(Array(UnsafeBufferPointer(start: data, count: size)), png)
        XCTAssertEqual(lazyimg_image_codec(image), LAZYIMG_CODEC_PNG)
        XCTAssertNil(lazyimg_image_pixels(image))
        XCTAssertEqual(lazyimg_image_width(image), 0)
        XCTAssertEqual(host.stats().images_decoded, 0, "nothing decoded")
        XCTAssertEqual(host.stats().memory_cache_bytes, UInt64(png.count), "cached as bytes")
        XCTAssertEqual(host.request(0).status, LAZYIMG_OK, "a memory hit now")
    }

    func testEveryFormatLoadsOverHTTPAndAnimationIsFlagged() throws {
        let palette: [[UInt8]] = [[255, 0, 0], [0, 0, 255]]
        let frame = GIFTestFrame(width: 4, height: 4, indices: Array(repeating: 0, count: 16))
        server.serve("/a.jpg", body: makeJPEG(width: 40, height: 20))
        server.serve("/b.png", body: makePNG(width: 40, height: 20))
        server.serve("/c.webp", body: makeWebP(width: 40, height: 20))
        server.serve("/d.gif", body: makeGIF(screenWidth: 4, screenHeight: 4, palette: palette, frames: [frame]))
        server.serve("/e.gif", body: makeGIF(screenWidth: 4, screenHeight: 4, palette: palette, frames: [frame, frame]))
        let (host, images) = try load(["/a.jpg", "/b.png", "/c.webp", "/d.gif", "/e.gif"]) { _ in }
        defer { images.forEach(lazyimg_image_release) }
        XCTAssertTrue(host.events.allSatisfy { $0.type == LAZYIMG_EVENT_IMAGE }, "\(host.events.map(\.message))")
        XCTAssertTrue(host.events.allSatisfy { $0.message == "" }, "empty, never NULL, for images")
        XCTAssertEqual(images.map { lazyimg_image_width($0) }, [40, 40, 40, 4, 4])
        XCTAssertEqual(images.map { lazyimg_image_is_animated($0) }, [0, 0, 0, 0, 1])
        XCTAssertEqual(lazyimg_image_codec(images[0]), LAZYIMG_CODEC_UNKNOWN, "decoded images have no codec")
    }

    func testFailureMessagesSayWhatTheStatusCannot() throws {
        server.serve("/bitmap", body: Array("BM".utf8) + Array(repeating: 0, count: 60))
        server.serve("/text", body: Array("hello".utf8))
        server.serve("/missing", body: [], status: 410)
        let host = try CHost()
        XCTAssertEqual(host.setItems(["/bitmap", "/text", "/missing"].map { server.url($0) }), LAZYIMG_OK)
        let tickets = (0..<3).map { host.request($0).ticket }
        host.dispatch(until: 3)
        func event(_ row: Int) -> ReceivedEvent? { host.events.first { $0.ticket == tickets[row] } }
        XCTAssertEqual(event(0)?.status, LAZYIMG_E_UNSUPPORTED)
        XCTAssertEqual(event(0)?.message, "unsupported image format: BMP")
        XCTAssertEqual(event(1)?.message, "unsupported image format: not an image (5 bytes)")
        XCTAssertEqual(event(2)?.message, "HTTP status 410")
    }

    func testUnknownConfigValuesAreRefused() {
        for change: (inout lazyimg_config) -> Void in [
            { $0.fit = lazyimg_fit(rawValue: 5) },
            { $0.pixel_format = lazyimg_pixel_format(rawValue: 9) },
            { $0.output = lazyimg_output(rawValue: 3) },
        ] {
            var config = lazyimg_config()
            lazyimg_config_init(&config)
            change(&config)
            var loader: OpaquePointer?
            XCTAssertEqual(lazyimg_loader_create(&config, &loader), LAZYIMG_E_INVALID_ARGUMENT)
            XCTAssertNil(loader)
        }
        var size = 7
        XCTAssertNil(lazyimg_image_encoded_data(nil, &size))
        XCTAssertEqual(size, 0)
        XCTAssertEqual(lazyimg_image_is_animated(nil), 0)
        XCTAssertEqual(lazyimg_image_codec(nil), LAZYIMG_CODEC_UNKNOWN)
        XCTAssertEqual(lazyimg_image_pixel_format(nil), LAZYIMG_PIXEL_RGBA8)
    }
}
#endif
