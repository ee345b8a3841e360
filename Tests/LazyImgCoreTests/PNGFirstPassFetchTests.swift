#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_5 // ThreadSanitizer group 5 (see the Makefile's tsan)
@testable import LazyImgCore
import TestSupport
import XCTest

/// A box an interlaced PNG's first Adam7 pass covers gets the file's start only, up to
/// that pass; a larger box for the URL continues the download from there. A new
/// site's files come whole and stop at pass 1; a site known to serve them and byte
/// ranges gets Range requests for the start. Real libcurl, a loopback server of byte
/// ranges, interlaced PNGs made by libspng.
final class PNGFirstPassFetchTests: XCTestCase {
    /// Pass 1 is 64 x 64 pixels of noise, about 12.4 KB.
    private let fits = makeNoisePNG(width: 512, height: 512, seed: 3, interlaced: true)
    /// Pass 1 is 96 x 64 pixels of noise, about 18.6 KB: past the range `fits` sizes.
    private let photo = makeNoisePNG(width: 768, height: 512, seed: 5, interlaced: true)
    private let box64 = DecodeOptions(target: TargetSize(width: 64, height: 64))

    private func firstPass(_ png: [UInt8], _ box: DecodeOptions) throws -> DecodedImage {
        try PNGInterlacedPrefix.decodeFirstPass(png, options: box)
    }

    private func wholeFile(_ png: [UInt8], _ box: DecodeOptions) throws -> DecodedImage {
        try PNGDecoder().decode(png, options: box, limits: DecodeLimits())
    }

    private func firstPassEnd(_ png: [UInt8]) throws -> Int {
        try FirstPassFetch.firstPassEnd(png, for: box64)
    }

    func testASmallBoxGetsPassOneAndNeverTheRest() throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        server.serveRanges("/f.png", body: fits, validator: "\"f1\"")
        let list = try FirstPassFetch.loader(box: 64)
        defer { try? list.0.shutdown() }
        let image = try FirstPassFetch.show(server.url("/f.png"), in: list)
        XCTAssertEqual(server.requests("/f.png").map { $0.header("Range") }, [nil], "a new site: whole, stopped")
        XCTAssertLessThan(list.0.stats.bytesDownloaded, UInt64(fits.count / 4))
        // Pass 1 is the box's size: the image is every 8th pixel of the whole file.
        XCTAssertTrue(FirstPassFetch.samePixels(image, try firstPass(fits, box64)))
        XCTAssertTrue(FirstPassFetch.samePixels(image, try wholeFile(fits, DecodeOptions()).everyEighthPixel()))
        XCTAssertFalse(image.isDamaged)
    }

    func testPassOneLongerThanTheFirstRangeIsAskedForAsItsRowsSay() throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        server.serveRanges("/p.png", body: photo, validator: "\"p1\"")
        let list = try FirstPassFetch.loader(box: 64)
        defer { try? list.0.shutdown() }
        try FirstPassFetch.learnSite(server, fits, in: list)
        let before = list.0.stats.bytesDownloaded
        let image = try FirstPassFetch.show(server.url("/p.png"), in: list)
        XCTAssertTrue(FirstPassFetch.samePixels(image, try firstPass(photo, box64)), "pass 1 resampled to the box")
        XCTAssertEqual([image.width, image.height], [64, 43])
        let ranges = server.requests("/p.png").map { $0.header("Range") ?? "" }
        XCTAssertEqual(ranges.count, 2, "one follow-up sized from pass 1's rows: \(ranges)")
        XCTAssertTrue(ranges[1].hasPrefix("bytes=\(FirstPassFetch.hintedRange(try firstPassEnd(fits)))-"), "\(ranges)")
        XCTAssertFalse(ranges[1].hasSuffix("-"), "never the whole rest: \(ranges)")
        XCTAssertLessThan(list.0.stats.bytesDownloaded - before, UInt64(photo.count / 20))
    }

    func testANonInterlacedPNGComesWholeInOneRequest() throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        let plain = makeNoisePNG(width: 768, height: 512, seed: 5)
        server.serveRanges("/n.png", body: plain, validator: "\"n1\"")
        let list = try FirstPassFetch.loader(box: 64)
        defer { try? list.0.shutdown() }
        let image = try FirstPassFetch.show(server.url("/n.png"), in: list)
        XCTAssertTrue(FirstPassFetch.samePixels(image, try wholeFile(plain, box64)))
        XCTAssertEqual(server.requests("/n.png").map { $0.header("Range") }, [nil])
        XCTAssertEqual(list.0.stats.bytesDownloaded, UInt64(plain.count))
        server.serveRanges("/m.png", body: makeNoisePNG(width: 768, height: 512, seed: 6), validator: "\"m1\"")
        XCTAssertEqual(try FirstPassFetch.show(server.url("/m.png"), in: list).width, 64)
        XCTAssertEqual(server.requests("/m.png").map { $0.header("Range") }, [nil])
    }

    func testALargerBoxResumesWithIfRangeAndShowsTheWholeFile() throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        server.serveRanges("/f.png", body: fits, validator: "\"f1\"")
        let trip = try FirstPassFetch.smallThenLarge(server, "/f.png", small: 64, large: 256)
        XCTAssertEqual(trip.asked?.header("Range"), "bytes=\(trip.smallBytes)-")
        XCTAssertEqual(trip.asked?.header("If-Range"), "\"f1\"")
        XCTAssertEqual(trip.largeStats.bytesResumed, trip.smallBytes)
        XCTAssertEqual(trip.largeStats.bytesDownloaded, UInt64(fits.count) - trip.smallBytes)
        XCTAssertTrue(FirstPassFetch.samePixels(trip.large, try wholeFile(fits, DecodeOptions(target: TargetSize(width: 256, height: 256)))),
                      "the larger box shows the whole file")
    }

    func testAServerThatIgnoresRangeIsStoppedAtPassOne() throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        server.serveRanges("/p.png", body: photo, validator: "\"p1\"", ranges: .ignore)
        let list = try FirstPassFetch.loader(box: 64)
        defer { try? list.0.shutdown() }
        try FirstPassFetch.learnSite(server, fits, in: list)
        let before = list.0.stats.bytesDownloaded
        let image = try FirstPassFetch.show(server.url("/p.png"), in: list)
        XCTAssertTrue(FirstPassFetch.samePixels(image, try firstPass(photo, box64)), "its 200 is watched as any whole body")
        XCTAssertEqual(server.requests("/p.png").map { $0.header("Range") != nil }, [true])
        XCTAssertLessThan(list.0.stats.bytesDownloaded - before, UInt64(photo.count / 10))
    }

    func testFetchingTheFirstPassOnlyCanBeTurnedOff() throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        server.serveRanges("/f.png", body: fits, validator: "\"f1\"")
        let list = try FirstPassFetch.loader(box: 64) { $0.fetchesFirstPassOnly = false }
        defer { try? list.0.shutdown() }
        XCTAssertEqual(try FirstPassFetch.show(server.url("/f.png"), in: list).width, 64)
        XCTAssertEqual(server.requests("/f.png").map { $0.header("Range") }, [nil])
    }

    func testTheDiskKeepsAFirstPassImageForItsBoxOnly() throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        server.serveRanges("/f.png", body: fits, validator: "\"f1\"", headers: ["Cache-Control: max-age=600"])
        let trip = try FirstPassFetch.diskRoundTrip(server, "/f.png", small: 64, large: 256)
        XCTAssertTrue(FirstPassFetch.samePixels(trip.again, try firstPass(fits, box64)))
        XCTAssertEqual(trip.againStats.diskHits, 1, "its box's thumbnail")
        XCTAssertEqual(trip.largeStats.diskHits, 0, "the start is no original for a larger box")
        XCTAssertTrue(FirstPassFetch.samePixels(trip.large, try wholeFile(fits, DecodeOptions(target: TargetSize(width: 256, height: 256)))))
    }

    func testHostileStartsGetTheWholeFilePathAndAClearError() throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        // An IHDR that lies (a size past the pixel budget), and image data that is no
        // zlib stream: neither is read as a start; the whole file's decode refuses it.
        let huge = withPNGSize(photo, width: 1 << 30, height: 1 << 30)
        let garbled = withGarbledPNGImageData(photo)
        for (path, body, expected) in [("/h.png", huge, LoaderError.tooLarge), ("/g.png", garbled, .decode)] {
            server.serveRanges(path, body: body, validator: "\"x\"")
            let list = try FirstPassFetch.loader(box: 64)
            defer { try? list.0.shutdown() }
            let event = try FirstPassFetch.event(server.url(path), in: list)
            XCTAssertEqual(event.error, expected, path)
            XCTAssertEqual(server.requests(path).map { $0.header("Range") }, [nil], path)
        }
    }
}

private extension DecodedImage {
    /// Every 8th pixel of every 8th row: an interlaced image's pass 1.
    func everyEighthPixel() -> DecodedImage {
        let sample = DecodedImage(width: (width + 7) / 8, height: (height + 7) / 8, sourceWidth: sourceWidth,
                                  sourceHeight: sourceHeight, format: format, isAnimated: false)!
        for y in 0..<sample.height {
            let from = row(8 * y), to = sample.row(y)
            for x in 0..<sample.width { for c in 0..<4 { to[4 * x + c] = from[32 * x + c] } }
        }
        return sample
    }
}
#endif
