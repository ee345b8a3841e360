#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_4 // ThreadSanitizer group 4 (see the Makefile's tsan)
import LazyImgCore
import TestSupport
import XCTest

/// What image requests ask for follows what this build decodes, against a loopback
/// server that negotiates as image CDNs do; and a build without libavif or libheif
/// names the format it refuses. `make check-without-avif-heif` runs these in such a
/// build.
final class ImageFormatNegotiationTests: XCTestCase {
    private var server: HTTPTestServer!

    override func setUpWithError() throws {
        server = try HTTPTestServer()
    }

    override func tearDown() {
        server?.stop()
    }

    private static let red: [UInt8] = [255, 0, 0, 255], green: [UInt8] = [0, 255, 0, 255]
    private static let blue: [UInt8] = [0, 0, 255, 255], white: [UInt8] = [255, 255, 255, 255]

    /// A 32 x 32 file of `colour` in `format`, or an AVIF or HEIC header alone when this
    /// build cannot make one (a server may still have it).
    private static func image(_ format: ImageFormat, _ colour: [UInt8]) -> [UInt8] {
        let pattern = TestPattern.solid(red: colour[0], green: colour[1], blue: colour[2])
        switch format {
        case .webp: return makeWebP(width: 32, height: 32, pattern: pattern)
        case .jpeg: return makeJPEG(width: 32, height: 32, quality: 95, pattern: pattern)
        #if LAZYIMG_AVIF
        case .avif: return makeAVIF(width: 32, height: 32, pattern: pattern)
        #endif
        #if LAZYIMG_HEIF
        case .heif: return makeHEIC(width: 32, height: 32, pattern: pattern)
        #endif
        default: return headerOnly(format)
        }
    }

    /// ftyp and an empty mdat: what sniffing sees of an AVIF or HEIC file.
    private static func headerOnly(_ format: ImageFormat) -> [UInt8] {
        let brand = format == .avif ? "avif" : "heic"
        return isoBox("ftyp", Array(brand.utf8) + bigEndian(0, bytes: 4) + Array("mif1\(brand)".utf8))
            + isoBox("mdat", [UInt8](repeating: 0, count: 16))
    }

    /// Loads `path` through a loader on real libcurl; its one event and the request the
    /// server saw.
    private func load(_ path: String, configure: (inout LoaderConfiguration) -> Void = { _ in })
        throws -> (event: LoaderEvent, request: HTTPTestRequest) {
        var config = LoaderConfiguration()
        config.decodeThreads = 1
        configure(&config)
        let events = Locked<[LoaderEvent]>([])
        let loader = try ImageLoader(configuration: config) { event in events.withLock { $0.append(event) } }
        defer { try? loader.shutdown() }
        try loader.setItems([server.url(path)])
        if case .image = try loader.request(row: 0) { XCTFail("answered from memory") }
        while events.withLock({ $0.isEmpty }) {
            XCTAssertTrue(try loader.waitForEvents(milliseconds: HangGuard.eventMilliseconds), "no event")
            _ = loader.dispatch(max: 0)
        }
        let request = try XCTUnwrap(server.requests(path).last)
        return (try XCTUnwrap(events.withLock { $0.first }), request)
    }

    func testAcceptNamesExactlyTheFormatsThisBuildDecodes() {
        var expected: [String] = []
        #if LAZYIMG_AVIF
        expected.append("image/avif")
        #endif
        #if LAZYIMG_HEIF
        expected.append("image/heic")
        #endif
        expected += ["image/webp", "image/png", "image/jpeg", "image/gif", "*/*;q=0.5"]
        XCTAssertEqual(ImageFormat.acceptHeader, expected.joined(separator: ","))
    }

    func testANegotiatingServerSendsTheBestFormatThisBuildDecodes() throws {
        server.serveNegotiated("/photo", variants: [("image/avif", Self.image(.avif, Self.red)),
                                                    ("image/heic", Self.image(.heif, Self.white)),
                                                    ("image/webp", Self.image(.webp, Self.green)),
                                                    ("image/jpeg", Self.image(.jpeg, Self.blue))])
        #if LAZYIMG_AVIF
        let (expected, colour) = (ImageFormat.avif, Self.red)
        #elseif LAZYIMG_HEIF
        let (expected, colour) = (ImageFormat.heif, Self.white)
        #else
        let (expected, colour) = (ImageFormat.webp, Self.green)
        #endif
        let decoded = try load("/photo")
        XCTAssertEqual(decoded.request.header("Accept"), ImageFormat.acceptHeader)
        let image = try XCTUnwrap(decoded.event.image, "\(decoded.event.outcome) \(decoded.event.message)")
        XCTAssertLessThanOrEqual(DecodingTestHelpers.maxDeviation(of: image, from: colour), 4, "\(expected)")
        // Encoded output asks alike, and hands out the file the server chose.
        let encoded = try load("/photo") { $0.output = .encoded }
        XCTAssertEqual(encoded.request.header("Accept"), ImageFormat.acceptHeader)
        XCTAssertEqual(try XCTUnwrap(encoded.event.image).codec, expected)
    }

    func testTheHostsOwnAcceptReplacesTheLoaders() throws {
        server.serveNegotiated("/photo", variants: [("image/webp", Self.image(.webp, Self.green)),
                                                    ("image/jpeg", Self.image(.jpeg, Self.blue))])
        let loaded = try load("/photo") { $0.httpHeaders = ["accept: image/jpeg"] }
        XCTAssertEqual(loaded.request.headers.filter { $0.name.lowercased() == "accept" }.map(\.value), ["image/jpeg"])
        XCTAssertLessThanOrEqual(DecodingTestHelpers.maxDeviation(of: try XCTUnwrap(loaded.event.image), from: Self.blue), 4)
    }

    func testDataFetchesKeepLibcurlsAccept() throws {
        server.serve("/feed.json", body: Array("{}".utf8))
        let events = Locked<[LoaderEvent]>([])
        let loader = try ImageLoader(configuration: LoaderConfiguration()) { event in events.withLock { $0.append(event) } }
        defer { try? loader.shutdown() }
        _ = try loader.fetch(url: ImageURL(server.url("/feed.json")))
        while events.withLock({ $0.isEmpty }) {
            XCTAssertTrue(try loader.waitForEvents(milliseconds: HangGuard.eventMilliseconds), "no event")
            _ = loader.dispatch(max: 0)
        }
        XCTAssertEqual(server.requests("/feed.json").last?.header("Accept"), "*/*")
    }

    func testAFormatThisBuildLacksIsUnsupportedAndNamed() throws {
        for (format, name) in [(ImageFormat.avif, "AVIF"), (.heif, "HEIF")] {
            server.serve("/only.\(name)", body: Self.headerOnly(format))
            let loaded = try load("/only.\(name)")
            XCTAssertEqual(loaded.event.error, format.isDecodable ? .decode : .unsupported, name)
            XCTAssertEqual(loaded.event.message, format.isDecodable ? "" : "unsupported image format: \(name)")
        }
    }
}

#endif
