#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_5 // ThreadSanitizer group 5 (see the Makefile's tsan)
import Glibc
@testable import LazyImgCore
import TestSupport
import XCTest

/// A box that a progressive JPEG fills from DCT scale 1/8 gets the file's start only,
/// up to its DC scans; a larger box for the URL continues the download from there.
/// On a site known to serve progressive files and ranges the start is asked for with
/// Range (a new site's files come whole and stop: `WholeFirstPassFetchTests`). Real
/// libcurl, a loopback server of byte ranges, progressive JPEGs made by TurboJPEG.
final class DCScanFetchTests: XCTestCase {
    private let photo = makeNoiseJPEG(width: 768, height: 512, quality: 80, progressive: true)

    // MARK: What the start of a file is enough for

    func testTheDCScansOfAProgressiveJPEGAreEnoughForABoxAnEighthOfItsSize() throws {
        let box = DecodeOptions(target: TargetSize(width: 96, height: 96))
        guard case .suffice(let end) = JPEGDCScans.examine(photo, for: box) else {
            return XCTFail("\(JPEGDCScans.examine(photo, for: box))")
        }
        XCTAssertLessThan(end, photo.count / 4, "the DC scans are a small part of the file")
        XCTAssertEqual(JPEGDCScans.examine(Array(photo[..<end]), for: box), .needMore(upTo: guessedEnd(end)),
                       "without the marker after them the scans may go on")
        // The start and an EOI decode to the box, close to the whole file's picture.
        let decoder = JPEGDecoder()
        let start = try decoder.decode(JPEGDCScans.decodable(photo, upTo: end), options: box, limits: DecodeLimits())
        let whole = try decoder.decode(photo, options: box, limits: DecodeLimits())
        XCTAssertEqual([start.width, start.height], [whole.width, whole.height])
        XCTAssertFalse(start.isDamaged)
        XCTAssertGreaterThan(FirstPassFetch.psnr(start, whole), 45, "the DC values as they are, not smoothed")
    }

    func testBaselineLargerBoxesAndOtherFilesNeedTheWholeFile() {
        let small = DecodeOptions(target: TargetSize(width: 96, height: 96))
        XCTAssertEqual(JPEGDCScans.examine(makeNoiseJPEG(width: 768, height: 512), for: small), .needWholeFile)
        XCTAssertEqual(JPEGDCScans.examine(photo, for: DecodeOptions(target: TargetSize(width: 97, height: 97))),
                       .needWholeFile, "1/4 is the scale that covers 97 px")
        XCTAssertEqual(JPEGDCScans.examine(photo, for: DecodeOptions()), .needWholeFile, "the original size")
        XCTAssertEqual(JPEGDCScans.examine(makePNG(width: 768, height: 512), for: small), .needWholeFile)
        XCTAssertEqual(JPEGDCScans.examine(Array(photo[..<3]), for: small), .needWholeFile)
    }

    // MARK: Through the loader

    func testAKnownSiteAsksForTheDCScansAndALargerBoxResumesFromThem() throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        server.serveRanges("/p.jpg", body: photo, validator: "\"p1\"")
        let session = try ImageSession(diskCacheDirectory: nil, diskCacheBytes: 0, maxConcurrentDownloads: 4)
        let list = try FirstPassFetch.loader(session: session, box: 64)
        defer { try? list.0.shutdown() }
        try FirstPassFetch.learnSite(server, photo, in: list)
        let before = list.0.stats.bytesDownloaded
        let image = try FirstPassFetch.show(server.url("/p.jpg"), in: list)
        XCTAssertEqual([image.width, image.height], [64, 43])
        let range = FirstPassFetch.hintedRange(try dcEnd())
        XCTAssertEqual(server.requests("/p.jpg").map { $0.header("Range") }, ["bytes=0-\(range - 1)"])
        XCTAssertEqual(list.0.stats.bytesDownloaded - before, UInt64(range))

        let detail = try FirstPassFetch.loader(session: session, box: 512)
        defer { try? detail.0.shutdown() }
        let large = try FirstPassFetch.show(server.url("/p.jpg"), in: detail)
        XCTAssertEqual(large.width, 512)
        let asked = server.requests("/p.jpg").last
        XCTAssertEqual(asked?.header("Range"), "bytes=\(range)-")
        XCTAssertEqual(asked?.header("If-Range"), "\"p1\"")
        XCTAssertEqual(detail.0.stats.bytesResumed, UInt64(range))
        XCTAssertEqual(detail.0.stats.bytesDownloaded, UInt64(photo.count - range))
        let whole = try JPEGDecoder().decode(photo, options: DecodeOptions(target: TargetSize(width: 512, height: 512)),
                                             limits: DecodeLimits())
        XCTAssertTrue(Array(large.row(100)) == Array(whole.row(100)), "the larger box shows the whole file")
    }

    func testAKeptStartAnswersAnotherSmallBoxWithoutTheNetwork() throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        let second = try showAt64Then96(server, forgettingBetween: false)
        XCTAssertEqual(server.hits("/p.jpg"), 1)
        XCTAssertEqual(second.bytesDownloaded, 0)
        XCTAssertGreaterThan(second.bytesResumed, 0)
    }

    func testAListAndItsDetailWaitingOnOneDownloadShareIt() throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        server.serveRanges("/p.jpg", body: photo, validator: "\"p1\"", gated: true)
        let session = try ImageSession(diskCacheDirectory: nil, diskCacheBytes: 0, maxConcurrentDownloads: 4)
        let list = try FirstPassFetch.loader(session: session, box: 64), detail = try FirstPassFetch.loader(session: session, box: 512)
        defer {
            try? list.0.shutdown()
            try? detail.0.shutdown()
        }
        // The list's request starts the download (so its box is the one watched), and
        // the detail joins it while the server holds the body back.
        for loader in [list, detail] {
            try loader.0.setItems([server.url("/p.jpg")])
            try loader.0.setVisibleRange(first: 0, count: 1)
            XCTAssertNotNil(try loader.0.request(row: 0).ticket)
            XCTAssertTrue(server.waitForHits("/p.jpg", count: 1, timeoutMilliseconds: 10_000))
        }
        XCTAssertTrue(waitForJoin(ImageURL(server.url("/p.jpg")), in: session), "the detail joined the download")
        server.release("/p.jpg")
        XCTAssertEqual(try FirstPassFetch.show(server.url("/p.jpg"), in: list).width, 64)
        let large = try FirstPassFetch.show(server.url("/p.jpg"), in: detail)
        let whole = try JPEGDecoder().decode(photo, options: DecodeOptions(target: TargetSize(width: 512, height: 512)),
                                             limits: DecodeLimits())
        XCTAssertTrue(Array(large.row(100)) == Array(whole.row(100)))
        XCTAssertEqual(server.requests("/p.jpg").map { $0.header("Range") }, [nil],
                       "one whole download: it does not stop at the DC scans the detail cannot use")
    }

    func testAForgottenURLsKeptStartAnswersNothing() throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        let second = try showAt64Then96(server, forgettingBetween: true)
        XCTAssertEqual(server.hits("/p.jpg"), 2, "asked again")
        XCTAssertEqual(second.bytesResumed, 0)
    }

    func testDCScansLongerThanTheFirstRangeAreAskedForAsTheScanHeadersSay() throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        let large = makeNoiseJPEG(width: 2048, height: 2048, quality: 80, progressive: true)
        server.serveRanges("/l.jpg", body: large, validator: "\"l1\"")
        let list = try FirstPassFetch.loader(box: 64)
        defer { try? list.0.shutdown() }
        try FirstPassFetch.learnSite(server, photo, in: list)
        let before = list.0.stats.bytesDownloaded
        let image = try FirstPassFetch.show(server.url("/l.jpg"), in: list)
        XCTAssertEqual(image.width, 64)
        let ranges = server.requests("/l.jpg").map { $0.header("Range") ?? "" }
        XCTAssertGreaterThan(ranges.count, 1, "\(ranges)")
        XCTAssertLessThan(ranges.count, CurlTransfer.maxStartHops)
        XCTAssertTrue(ranges[1].hasPrefix("bytes=\(FirstPassFetch.hintedRange(try dcEnd()))-"), "\(ranges)")
        XCTAssertFalse(ranges.last?.hasSuffix("-") ?? true, "never the whole rest: \(ranges)")
        XCTAssertLessThan(list.0.stats.bytesDownloaded - before, UInt64(large.count / 3))
        XCTAssertEqual(list.0.stats.bytesResumed, 0, "its own earlier ranges are downloaded bytes")
    }

    func testABaselineJPEGComesWholeInOneRequest() throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        let baseline = makeNoiseJPEG(width: 768, height: 512, quality: 80)
        server.serveRanges("/b.jpg", body: baseline, validator: "\"b1\"")
        let list = try FirstPassFetch.loader(box: 64)
        defer { try? list.0.shutdown() }
        let image = try FirstPassFetch.show(server.url("/b.jpg"), in: list)
        let whole = try JPEGDecoder().decode(baseline, options: DecodeOptions(target: TargetSize(width: 64, height: 64)),
                                             limits: DecodeLimits())
        XCTAssertTrue(Array(image.row(20)) == Array(whole.row(20)))
        XCTAssertEqual(server.requests("/b.jpg").map { $0.header("Range") }, [nil])
        XCTAssertEqual(list.0.stats.bytesDownloaded, UInt64(baseline.count))
        XCTAssertEqual(list.0.stats.bytesResumed, 0)
    }

    func testASiteOfBaselineFilesGetsWholeFilesUntilItTurnsProgressive() throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        for (index, seed) in [1, 2, 3].enumerated() {
            server.serveRanges("/\(index).jpg", body: makeNoiseJPEG(width: 768, height: 512, seed: UInt64(seed), quality: 80),
                               validator: "\"b\(index)\"")
        }
        let list = try FirstPassFetch.loader(box: 64)
        defer { try? list.0.shutdown() }
        for index in 0..<3 { XCTAssertEqual(try FirstPassFetch.show(server.url("/\(index).jpg"), in: list).width, 64) }
        XCTAssertEqual(server.requests("/0.jpg").map { $0.header("Range") }, [nil])
        XCTAssertEqual(server.requests("/1.jpg").map { $0.header("Range") }, [nil])
        XCTAssertEqual(server.requests("/2.jpg").map { $0.header("Range") }, [nil])
        // A progressive file (stopped at its DC scans) turns the site: the next asks for its start.
        server.serveRanges("/3.jpg", body: photo, validator: "\"p3\"")
        server.serveRanges("/4.jpg", body: photo, validator: "\"p4\"")
        XCTAssertEqual(try FirstPassFetch.show(server.url("/3.jpg"), in: list).width, 64)
        XCTAssertEqual(server.requests("/3.jpg").map { $0.header("Range") }, [nil])
        XCTAssertEqual(try FirstPassFetch.show(server.url("/4.jpg"), in: list).width, 64)
        let end = try dcEnd()
        XCTAssertEqual(server.requests("/4.jpg").map { $0.header("Range") }, ["bytes=0-\(end + end / 4 + 512 - 1)"],
                       "sized from the DC scans seen there")
    }

    func testAServerThatIgnoresRangeIsStoppedAndAskedWithoutRangeAfter() throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        server.serveRanges("/p.jpg", body: photo, validator: "\"p1\"", ranges: .ignore)
        server.serveRanges("/q.jpg", body: photo, validator: "\"q1\"", ranges: .ignore)
        let list = try FirstPassFetch.loader(box: 64)
        defer { try? list.0.shutdown() }
        try FirstPassFetch.learnSite(server, photo, in: list)
        let before = list.0.stats.bytesDownloaded
        XCTAssertEqual(try FirstPassFetch.show(server.url("/p.jpg"), in: list).width, 64)
        XCTAssertEqual(server.requests("/p.jpg").map { $0.header("Range") != nil }, [true])
        XCTAssertLessThan(list.0.stats.bytesDownloaded - before, UInt64(photo.count / 2), "its 200 stopped too")
        XCTAssertEqual(try FirstPassFetch.show(server.url("/q.jpg"), in: list).width, 64)
        XCTAssertEqual(server.requests("/q.jpg").map { $0.header("Range") }, [nil], "learnt: no Range")
    }

    func testAMisplacedRangeStartsOverWithoutRange() throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        server.serveRanges("/p.jpg", body: photo, validator: "\"p1\"", ranges: .misplace(by: 7))
        let list = try FirstPassFetch.loader(box: 64)
        defer { try? list.0.shutdown() }
        try FirstPassFetch.learnSite(server, photo, in: list)
        XCTAssertEqual(try FirstPassFetch.show(server.url("/p.jpg"), in: list).width, 64)
        XCTAssertEqual(server.requests("/p.jpg").map { $0.header("Range") },
                       ["bytes=0-\(FirstPassFetch.hintedRange(try dcEnd()) - 1)", nil])
    }

    func testFetchingTheDCScansOnlyCanBeTurnedOff() throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        server.serveRanges("/p.jpg", body: photo, validator: "\"p1\"")
        let list = try FirstPassFetch.loader(box: 64) { $0.fetchesFirstPassOnly = false }
        defer { try? list.0.shutdown() }
        XCTAssertEqual(try FirstPassFetch.show(server.url("/p.jpg"), in: list).width, 64)
        XCTAssertEqual(server.requests("/p.jpg").map { $0.header("Range") }, [nil])
        XCTAssertEqual(list.0.stats.bytesDownloaded, UInt64(photo.count))
    }

    func testTheDiskKeepsADCScansImageForItsBoxOnly() throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        server.serveRanges("/p.jpg", body: photo, validator: "\"p1\"", headers: ["Cache-Control: max-age=600"])
        let trip = try FirstPassFetch.diskRoundTrip(server, "/p.jpg", small: 64, large: 512)
        XCTAssertEqual(trip.again.width, 64)
        XCTAssertEqual(trip.againStats.diskHits, 1, "its box's thumbnail")
        XCTAssertEqual(trip.large.width, 512)
        XCTAssertEqual(trip.largeStats.diskHits, 0, "the start is no original for a larger box")
        // A new network: no start kept, and nothing learnt of the site: the whole file.
        XCTAssertEqual(server.requests("/p.jpg").dropFirst(trip.requestsBeforeLarge).map { $0.header("Range") }, [nil])
    }

    // MARK: Helpers

    /// The photo in a 64 px loader, then in a 96 px one of the same session (both
    /// served by the DC scans); the second's stats. no-store: no response is kept
    /// for reuse, so the second asks the network.
    private func showAt64Then96(_ server: HTTPTestServer, forgettingBetween forget: Bool) throws -> LoaderStats {
        server.serveRanges("/p.jpg", body: photo, validator: "\"p1\"", headers: ["Cache-Control: no-store"])
        let session = try ImageSession(diskCacheDirectory: nil, diskCacheBytes: 0, maxConcurrentDownloads: 4)
        let first = try FirstPassFetch.loader(session: session, box: 64)
        defer { try? first.0.shutdown() }
        XCTAssertEqual(try FirstPassFetch.show(server.url("/p.jpg"), in: first).width, 64)
        if forget { try first.0.removeFromDiskCache(url: ImageURL(server.url("/p.jpg"))) }
        let second = try FirstPassFetch.loader(session: session, box: 96)
        defer { try? second.0.shutdown() }
        XCTAssertEqual(try FirstPassFetch.show(server.url("/p.jpg"), in: second).width, 96)
        return second.0.stats
    }

    /// Waits (at most 10 s) until two requests wait on `url`'s download.
    private func waitForJoin(_ url: ImageURL, in session: ImageSession) -> Bool {
        let clock = MonotonicClock()
        let deadline = clock.nowMilliseconds + 10_000
        while session.transfers.waitingCount(for: url) < 2 {
            guard clock.nowMilliseconds < deadline else { return false }
            usleep(1_000)
        }
        return true
    }

    private func dcEnd() throws -> Int {
        try FirstPassFetch.firstPassEnd(photo, for: DecodeOptions(target: TargetSize(width: 64, height: 64)))
    }

    private func guessedEnd(_ have: Int) -> Int {
        guard case .needMore(let upTo) = JPEGDCScans.examine(Array(photo[..<have]), for: DecodeOptions(
            target: TargetSize(width: 96, height: 96))) else { return -1 }
        return upTo
    }
}
#endif
