#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_4 // ThreadSanitizer group 4 (see the Makefile's tsan)
@testable import LazyImgCore
import TestSupport
import XCTest

/// While an origin's files are not known to be progressive and served by byte
/// range, a request that may need only a file's first pass fetches it whole, in one
/// request without Range, and the network thread stops the body at its first pass
/// when that serves the box. Real libcurl against loopback servers, files made by
/// TurboJPEG and libspng.
final class WholeFirstPassFetchTests: XCTestCase {
    private let photo = makeNoiseJPEG(width: 768, height: 512, quality: 80, progressive: true)
    private let box64 = DecodeOptions(target: TargetSize(width: 64, height: 64))
    /// libcurl hands the body over at most this much per write callback
    /// (CURL_MAX_WRITE_SIZE), so a stop lands within one of them past the first pass.
    private let oneWrite = 16 << 10

    private func firstPassEnd(_ file: [UInt8], _ box: DecodeOptions? = nil) throws -> Int {
        try FirstPassFetch.firstPassEnd(file, for: box ?? box64)
    }

    /// What a JPEG's DC scans decode to at `box`: the image the Range start gave.
    private func firstPassImage(_ file: [UInt8], _ box: DecodeOptions) throws -> DecodedImage {
        try JPEGDecoder().decode(FirstPass.decodable(file, upTo: firstPassEnd(file, box)), options: box,
                                 limits: DecodeLimits())
    }

    /// Every URL's image, requested at once (all rows visible), waited for.
    private func showAll(_ urls: [String], in loader: (ImageLoader, EventLog)) throws -> [DecodedImage] {
        try loader.0.setItems(urls)
        try loader.0.setVisibleRange(first: 0, count: urls.count)
        var tickets: [Int: UInt64] = [:], images: [Int: DecodedImage] = [:]
        for row in urls.indices {
            let answer = try loader.0.request(row: row)
            if let image = answer.image { images[row] = image } else { tickets[row] = try XCTUnwrap(answer.ticket) }
        }
        try FirstPassFetch.dispatch(loader.0, until: { !tickets.contains { loader.1.events(for: $0.value).isEmpty } })
        for (row, ticket) in tickets {
            let event = try XCTUnwrap(loader.1.events(for: ticket).first, "row \(row): no event")
            images[row] = try XCTUnwrap(event.image, "row \(row): \(String(describing: event.error)) \(event.message)")
        }
        return urls.indices.map { images[$0]! }
    }

    // MARK: When the watch looks

    func testAPNGIsLookedAtAfterAQuietSpellWhenItsLastBytesBroughtNoLook() throws {
        let png = makeNoisePNG(width: 768, height: 512, seed: 5, interlaced: true)
        // The shortest start that holds pass 1.
        var (short, long) = (33, try firstPassEnd(png))
        while long - short > 1 {
            let middle = (short + long) / 2
            if case .suffice = FirstPass.examine(Array(png[..<middle]), for: box64) { long = middle } else { short = middle }
        }
        var watch = FirstPassWatch(box: box64)
        XCTAssertEqual(watch.arrived(Array(png[..<33])), .wait, "the IHDR: interlaced, pass 1 covers the box")
        XCTAssertEqual(watch.arrived(Array(png[..<short])), .wait, "looked at: pass 1 goes on")
        // Less than an eighth more: no look, though pass 1 is all here now.
        XCTAssertEqual(watch.arrived(Array(png[..<long])), .wait)
        XCTAssertTrue(watch.wantsQuietLook(at: long))
        guard case .suffice = watch.quiet(Array(png[..<long])) else { return XCTFail("the quiet look finds pass 1") }
        XCTAssertFalse(watch.wantsQuietLook(at: long), "nothing new to look at")
    }

    func testBaselineFilesAndOtherFormatsEndTheWatchWithoutALook() {
        var jpeg = FirstPassWatch(box: box64)
        let baseline = makeNoiseJPEG(width: 768, height: 512, quality: 80)
        XCTAssertEqual(jpeg.arrived(Array(baseline.prefix(2048))), .wholeFile, "its frame header says baseline")
        var png = FirstPassWatch(box: box64)
        XCTAssertEqual(png.arrived(Array(makeNoisePNG(width: 768, height: 512).prefix(64))), .wholeFile, "not interlaced")
        var other = FirstPassWatch(box: box64)
        XCTAssertEqual(other.arrived(Array("GIF89a\u{1}\u{0}\u{1}\u{0}".utf8)), .wholeFile)
        var large = FirstPassWatch(box: DecodeOptions(target: TargetSize(width: 192, height: 192)))
        XCTAssertEqual(large.arrived(photo), .wholeFile, "at 1/4 the DC scans do not serve it")
    }

    // MARK: A fresh loader

    func testABaselineSiteCostsOneRequestPerFileAndNoByteMore() throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        let files = (0..<8).map { makeNoiseJPEG(width: 768, height: 512, seed: UInt64($0 + 1), quality: 80) }
        for (index, file) in files.enumerated() { server.serveRanges("/\(index).jpg", body: file, validator: "\"b\(index)\"") }
        let list = try FirstPassFetch.loader(box: 64) { $0.maxConcurrentDownloads = 8 }
        defer { try? list.0.shutdown() }
        let images = try showAll(files.indices.map { server.url("/\($0).jpg") }, in: list)
        for (index, file) in files.enumerated() {
            XCTAssertEqual(server.requests("/\(index).jpg").map { $0.header("Range") }, [nil], "file \(index)")
            XCTAssertTrue(FirstPassFetch.samePixels(images[index], try JPEGDecoder().decode(file, options: box64, limits: DecodeLimits())))
        }
        XCTAssertEqual(list.0.stats.bytesDownloaded, UInt64(files.reduce(0) { $0 + $1.count }))
        XCTAssertEqual(list.0.stats.downloadsFailed, 0)
        XCTAssertEqual(list.0.stats.downloadsRetried, 0)
    }

    func testAProgressiveSiteStopsEachBodyAtItsDCScansThenAsksForStarts() throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        let files = (0..<6).map { makeNoiseJPEG(width: 768, height: 512, seed: UInt64($0 + 1), quality: 80, progressive: true) }
        for (index, file) in files.enumerated() { server.serveRanges("/\(index).jpg", body: file, validator: "\"p\(index)\"") }
        let list = try FirstPassFetch.loader(box: 64) { $0.maxConcurrentDownloads = 6 }
        defer { try? list.0.shutdown() }
        let images = try showAll(files.indices.map { server.url("/\($0).jpg") }, in: list)
        var bound = 0
        for (index, file) in files.enumerated() {
            XCTAssertEqual(server.requests("/\(index).jpg").map { $0.header("Range") }, [nil], "file \(index)")
            XCTAssertTrue(FirstPassFetch.samePixels(images[index], try firstPassImage(file, box64)), "file \(index): the DC scans' picture")
            bound += try firstPassEnd(file) + oneWrite
        }
        let stats = list.0.stats
        XCTAssertLessThanOrEqual(stats.bytesDownloaded, UInt64(bound), "each stopped within a write past its DC scans")
        XCTAssertLessThan(stats.bytesDownloaded, UInt64(files.reduce(0) { $0 + $1.count } / 3))
        XCTAssertEqual(stats.downloadsFailed + stats.downloadsRetried + stats.downloadsCancelled, 0,
                       "a stop is none of these")

        // The site is known now: progressive, and serving ranges.
        let next = makeNoiseJPEG(width: 768, height: 512, seed: 9, quality: 80, progressive: true)
        server.serveRanges("/n.jpg", body: next, validator: "\"n\"")
        XCTAssertTrue(FirstPassFetch.samePixels(try FirstPassFetch.show(server.url("/n.jpg"), in: list), try firstPassImage(next, box64)))
        let range = try XCTUnwrap(server.requests("/n.jpg").first?.header("Range"))
        XCTAssertTrue(range.hasPrefix("bytes=0-"), range)
        XCTAssertEqual(server.hits("/n.jpg"), 1)
    }

    func testAnInterlacedPNGSiteStopsEachBodyAtPassOne() throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        let files = (0..<4).map { makeNoisePNG(width: 768, height: 512, seed: UInt64($0 + 5), interlaced: true) }
        for (index, file) in files.enumerated() { server.serveRanges("/\(index).png", body: file, validator: "\"i\(index)\"") }
        let list = try FirstPassFetch.loader(box: 64) { $0.maxConcurrentDownloads = 4 }
        defer { try? list.0.shutdown() }
        let images = try showAll(files.indices.map { server.url("/\($0).png") }, in: list)
        var bound = 0
        for (index, file) in files.enumerated() {
            XCTAssertEqual(server.requests("/\(index).png").map { $0.header("Range") }, [nil], "file \(index)")
            XCTAssertTrue(FirstPassFetch.samePixels(images[index], try PNGInterlacedPrefix.decodeFirstPass(file, options: box64)))
            // Looked at each time the body grew by an eighth: stopped within that, or a write.
            let end = try firstPassEnd(file)
            bound += end + max(end / 8, oneWrite)
        }
        XCTAssertLessThanOrEqual(list.0.stats.bytesDownloaded, UInt64(bound))
        XCTAssertLessThan(list.0.stats.bytesDownloaded, UInt64(files.reduce(0) { $0 + $1.count } / 10))
        let next = makeNoisePNG(width: 768, height: 512, seed: 11, interlaced: true)
        server.serveRanges("/n.png", body: next, validator: "\"n\"")
        XCTAssertTrue(FirstPassFetch.samePixels(try FirstPassFetch.show(server.url("/n.png"), in: list),
                           try PNGInterlacedPrefix.decodeFirstPass(next, options: box64)))
        XCTAssertEqual(server.requests("/n.png").first?.header("Range")?.hasPrefix("bytes=0-"), true)
    }

    // MARK: A larger box later

    func testALargerBoxResumesAStoppedBodyWithIfRange() throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        server.serveRanges("/p.jpg", body: photo, validator: "\"p1\"")
        let trip = try FirstPassFetch.smallThenLarge(server, "/p.jpg", small: 64, large: 512)
        XCTAssertEqual(trip.asked?.header("Range"), "bytes=\(trip.smallBytes)-")
        XCTAssertEqual(trip.asked?.header("If-Range"), "\"p1\"")
        XCTAssertEqual(trip.largeStats.bytesResumed, trip.smallBytes, "every byte the stop received")
        XCTAssertEqual(trip.largeStats.bytesDownloaded, UInt64(photo.count) - trip.smallBytes)
        let whole = try JPEGDecoder().decode(photo, options: DecodeOptions(target: TargetSize(width: 512, height: 512)),
                                             limits: DecodeLimits())
        XCTAssertTrue(FirstPassFetch.samePixels(trip.large, whole))
    }

    func testAChangedETagStartsOver() throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        server.serveRanges("/p.jpg", body: photo, validator: "\"v1\"")
        let changed = makeNoiseJPEG(width: 768, height: 512, seed: 7, quality: 80, progressive: true)
        let trip = try FirstPassFetch.smallThenLarge(server, "/p.jpg", small: 64, large: 512) {
            server.serveRanges("/p.jpg", body: changed, validator: "\"v2\"")
        }
        XCTAssertEqual(trip.asked?.header("If-Range"), "\"v1\"")
        XCTAssertEqual(trip.largeStats.bytesResumed, 0)
        XCTAssertEqual(trip.largeStats.bytesDownloaded, UInt64(changed.count), "the new file, whole")
        XCTAssertTrue(FirstPassFetch.samePixels(trip.large, try JPEGDecoder().decode(changed, options: DecodeOptions(
            target: TargetSize(width: 512, height: 512)), limits: DecodeLimits())))
    }

    func testAServerWithoutValidatorsOrRangesStopsAndKeepsNothing() throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        server.serve("/p.jpg", body: photo, contentType: "image/jpeg")
        server.serve("/q.jpg", body: photo, contentType: "image/jpeg")
        let session = try ImageSession(diskCacheDirectory: nil, diskCacheBytes: 0, maxConcurrentDownloads: 4)
        let list = try FirstPassFetch.loader(session: session, box: 64)
        defer { try? list.0.shutdown() }
        XCTAssertTrue(FirstPassFetch.samePixels(try FirstPassFetch.show(server.url("/p.jpg"), in: list), try firstPassImage(photo, box64)))
        XCTAssertLessThanOrEqual(list.0.stats.bytesDownloaded, UInt64(try firstPassEnd(photo) + oneWrite))
        // No Accept-Ranges: the next file is fetched whole (and stopped) too.
        XCTAssertEqual(try FirstPassFetch.show(server.url("/q.jpg"), in: list).width, 64)
        XCTAssertEqual(server.requests("/q.jpg").map { $0.header("Range") }, [nil])
        let detail = try FirstPassFetch.loader(session: session, box: 512)
        defer { try? detail.0.shutdown() }
        XCTAssertEqual(try FirstPassFetch.show(server.url("/p.jpg"), in: detail).width, 512)
        XCTAssertEqual(server.requests("/p.jpg").map { $0.header("Range") }, [nil, nil], "nothing kept to resume")
        XCTAssertEqual(detail.0.stats.bytesResumed, 0)
        XCTAssertEqual(detail.0.stats.bytesDownloaded, UInt64(photo.count))
    }

    /// Each path in a loader of its own (a first file would teach a shared network
    /// that the site serves ranges): one request without Range, the image expected.
    private func showEachAlone(_ server: HTTPTestServer, _ cases: [(path: String, expected: DecodedImage)],
                               _ change: (inout LoaderConfiguration) -> Void = { _ in }) throws -> [LoaderStats] {
        try cases.map { path, expected in
            let list = try FirstPassFetch.loader(box: 64, change)
            defer { try? list.0.shutdown() }
            XCTAssertTrue(FirstPassFetch.samePixels(try FirstPassFetch.show(server.url(path), in: list), expected), path)
            XCTAssertEqual(server.requests(path).map { $0.header("Range") }, [nil], path)
            return list.0.stats
        }
    }

    // MARK: Hostile servers

    func testABodyCutShortAfterItsFirstPassStillServesTheBox() throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        let end = try firstPassEnd(photo)
        server.serveRanges("/p.jpg", body: photo, validator: "\"p1\"", cutAfter: end + 64)
        let png = makeNoisePNG(width: 768, height: 512, seed: 5, interlaced: true)
        server.serveRanges("/p.png", body: png, validator: "\"g1\"", cutAfter: try firstPassEnd(png) + 64)
        let stats = try showEachAlone(server, [("/p.jpg", try firstPassImage(photo, box64)),
                                               ("/p.png", try PNGInterlacedPrefix.decodeFirstPass(png, options: box64))])
        XCTAssertEqual(stats.map { $0.downloadsFailed + $0.downloadsRetried }, [0, 0], "no retry")
    }

    func testABodyCutShortBeforeItsFirstPassIsRetriedFromWhereItStopped() throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        server.serveRanges("/p.jpg", body: photo, validator: "\"p1\"", cutAfter: 1000)
        let list = try FirstPassFetch.loader(box: 64)
        defer { try? list.0.shutdown() }
        // The retry continues the cut body up to its DC scans (a Range answer is
        // not cut here), with If-Range.
        let image = try FirstPassFetch.show(server.url("/p.jpg"), in: list)
        XCTAssertTrue(FirstPassFetch.samePixels(image, try firstPassImage(photo, box64)))
        let asked = server.requests("/p.jpg")
        XCTAssertEqual(asked.count, 2)
        XCTAssertEqual(asked.last?.header("Range")?.hasPrefix("bytes=1000-"), true)
        XCTAssertEqual(asked.last?.header("If-Range"), "\"p1\"")
        XCTAssertEqual(list.0.stats.downloadsRetried, 1)
    }

    func testGarbageAfterTheFirstPassIsNeverRead() throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        let end = try firstPassEnd(photo)
        // The marker after the DC scans ends them; then bytes that are no JPEG.
        let spoilt = Array(photo[..<(end + 2)]) + (0..<60_000).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }
        server.serveRanges("/p.jpg", body: spoilt, validator: "\"p1\"")
        let png = makeNoisePNG(width: 768, height: 512, seed: 5, interlaced: true)
        // After the chunk that holds pass 1's end, with its CRC: the start is a sound
        // PNG's, whatever follows (a chunk cut by garbage would fail its CRC check).
        let pngEnd = try firstPassEnd(png)
        var chunkEnd = 8
        while chunkEnd < pngEnd { chunkEnd += 12 + png[chunkEnd..<(chunkEnd + 4)].reduce(0) { $0 << 8 | Int($1) } }
        let spoiltPNG = Array(png[..<chunkEnd]) + [UInt8](repeating: 0x5A, count: 200_000)
        server.serveRanges("/p.png", body: spoiltPNG, validator: "\"g1\"")
        let stats = try showEachAlone(server, [("/p.jpg", try firstPassImage(photo, box64)),
                                               ("/p.png", try PNGInterlacedPrefix.decodeFirstPass(png, options: box64))])
        XCTAssertLessThan(stats[0].bytesDownloaded, UInt64(spoilt.count) / 2)
        XCTAssertLessThan(stats[1].bytesDownloaded, UInt64(spoiltPNG.count) / 4)
    }

    func testAServerThatStallsAfterTheFirstPassIsNotWaitedFor() throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        let end = try firstPassEnd(photo)
        server.serveRanges("/p.jpg", body: photo, validator: "\"p1\"", stallAfter: end + 2)
        let png = makeNoisePNG(width: 768, height: 512, seed: 5, interlaced: true)
        server.serveRanges("/p.png", body: png, validator: "\"g1\"", stallAfter: try firstPassEnd(png) + 1)
        // A minute's timeout: an answer within `show`'s 10 s wait came without the stall's end.
        let stats = try showEachAlone(server, [("/p.jpg", try firstPassImage(photo, box64)),
                                               ("/p.png", try PNGInterlacedPrefix.decodeFirstPass(png, options: box64))]) {
            $0.timeoutMilliseconds = 60_000
        }
        XCTAssertEqual(stats.map(\.downloadsFailed), [0, 0])
    }

    func testDestroyWhileAWatchedBodyIsStalledEndsCleanly() throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        server.serveRanges("/p.jpg", body: photo, validator: "\"p1\"", stallAfter: 100)
        let list = try FirstPassFetch.loader(box: 64)
        try list.0.setItems([server.url("/p.jpg")])
        try list.0.setVisibleRange(first: 0, count: 1)
        XCTAssertNotNil(try list.0.request(row: 0).ticket)
        XCTAssertTrue(server.waitForHits("/p.jpg", count: 1, timeoutMilliseconds: 10_000))
        try list.0.shutdown()
        XCTAssertTrue(server.waitForClosedConnections(count: 1, timeoutMilliseconds: 10_000), "the transfer's connection closed")
    }
}
#endif
