#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_5 // ThreadSanitizer group 5 (see the Makefile's tsan)
import Glibc
@testable import LazyImgCore
import TestSupport
import XCTest

/// Progressive previews (preview_interval_ms): the scans of a progressive JPEG, or the
/// Adam7 passes of an interlaced PNG, that came, decoded at the box while the rest
/// downloads. Real libcurl against a
/// loopback server that holds the rest of the body back until the test lets it go,
/// so every preview is waited for, never slept for.
final class PreviewTests: XCTestCase {
    private let photo = makeNoiseJPEG(width: 768, height: 512, quality: 80, progressive: true)
    private let box = DecodeOptions(target: TargetSize(width: 192, height: 192))

    // MARK: Where the scans end

    func testTheScansOfAProgressiveBodyAreFoundHoweverItArrives() throws {
        let ends = scanEnds(photo, pieces: 1)
        let sosCount = photo.withUnsafeBufferPointer { bytes in
            var markers = JPEGMarkers(bytes)
            var count = 0
            while let segment = markers.next(), segment.marker != 0xD9 { count += segment.marker == 0xDA ? 1 : 0 }
            return count
        }
        XCTAssertGreaterThan(sosCount, 2)
        XCTAssertEqual(ends.count, sosCount - 1, "byte by byte, every scan but the last, which ends at EOI")
        XCTAssertEqual(scanEnds(photo, pieces: photo.count), [ends.last!], "at once: where the last complete one ends")
        let inPieces = scanEnds(photo, pieces: 977)
        XCTAssertEqual(inPieces.last, ends.last)
        XCTAssertTrue(Set(inPieces).isSubset(of: ends), "markers split between arrivals are found")
        for end in ends {
            XCTAssertEqual(photo[end], 0xFF)
            XCTAssertTrue([0xDA, 0xC4].contains(photo[end + 1]), "a scan or a table follows")
        }
        XCTAssertEqual(scanEnds(makeNoiseJPEG(width: 768, height: 512, quality: 80), pieces: 1000), [],
                       "a baseline file's prefix is rows, not a picture")
        XCTAssertEqual(scanEnds(makePNG(width: 64, height: 64), pieces: 100), [])
        XCTAssertEqual(scanEnds(Array(photo[..<(ends[0] + 1)]), pieces: 1), [], "the marker's second byte decides")
    }

    // MARK: Through the loader

    func testAProgressiveJPEGSentSlowlyGivesAPreviewBeforeItsImage() throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        let ends = scanEnds(photo, pieces: 1)
        server.serveStalling("/p.jpg", body: photo, sentBytes: ends[2] + 2)
        let list = try loader(previewEvery: 50)
        defer { try? list.0.shutdown() }
        let ticket = try ask(server.url("/p.jpg"), in: list)
        let preview = try XCTUnwrap(waitForPreview(ticket, in: list))
        let meanwhile = try list.0.request(row: 0)
        XCTAssertNil(meanwhile.image, "a preview is no memory hit")
        server.release("/p.jpg")
        let final = try waitForImage(ticket, in: list)
        if let second = meanwhile.ticket { XCTAssertNotNil(try waitForImage(second, in: list)) }

        let scansSoFar = try ends[...2].map { end in
            rows(try JPEGDecoder().decode(Array(photo[..<end]) + [0xFF, 0xD9], options: box, limits: DecodeLimits()))
        }
        XCTAssertEqual([preview.width, preview.height], [192, 128], "at the box")
        XCTAssertEqual([final.width, final.height], [192, 128])
        XCTAssertTrue(scansSoFar.contains(rows(preview)), "the first scans, up to the three that came")
        XCTAssertFalse(rows(preview) == rows(final), "fewer scans than the whole file")
        let events = list.1.events(for: ticket)
        XCTAssertNotNil(events.last?.image, "the final event comes last")
        XCTAssertEqual(events.filter { $0.image != nil || $0.error != nil }.count, 1, "exactly one final event")
        XCTAssertTrue(events.dropLast().allSatisfy { $0.preview != nil })

        // The memory cache holds the final image, never a preview.
        let again = try XCTUnwrap(try list.0.request(row: 0).image)
        XCTAssertTrue(rows(again) == rows(final))
        XCTAssertEqual(list.0.stats.memoryCacheCount, 1)
    }

    func testAnInterlacedPNGSentSlowlyGivesItsPassesBeforeItsImage() throws {
        let png = makeNoisePNG(width: 768, height: 512, seed: 5, interlaced: true)
        let low = fewestBytes(holdingPasses: 3, of: png)
        let server = try HTTPTestServer()
        defer { server.stop() }
        server.serveStalling("/i.png", body: png, sentBytes: low)
        let list = try loader(previewEvery: 1)
        defer { try? list.0.shutdown() }
        let ticket = try ask(server.url("/i.png"), in: list)
        let preview = try XCTUnwrap(waitForPreview(ticket, in: list))
        server.release("/i.png")
        let final = try waitForImage(ticket, in: list)

        XCTAssertEqual([preview.width, preview.height], [192, 128], "at the box")
        let passesSoFar = try (1...3).map { passes in
            rows(try PNGInterlacedPrefix.preview(Array(png[..<fewestBytes(holdingPasses: passes, of: png)]),
                                                 options: box).image)
        }
        XCTAssertTrue(passesSoFar.contains(rows(preview)), "the first passes, up to the three that came")
        XCTAssertFalse(rows(preview) == rows(final))
        XCTAssertNotNil(list.1.events(for: ticket).last?.image)
        XCTAssertEqual(list.1.events(for: ticket).filter { $0.preview == nil }.count, 1)
    }

    func testNoPreviewsWhenTheFieldIsZeroOrTheFileBaselineOrNotInterlaced() throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        let baseline = makeNoiseJPEG(width: 768, height: 512, quality: 80)
        let plainPNG = makeNoisePNG(width: 768, height: 512, seed: 5)
        let end = scanEnds(photo, pieces: 1)[2]
        server.serveStalling("/p.jpg", body: photo, sentBytes: end + 2)
        server.serveStalling("/b.jpg", body: baseline, sentBytes: baseline.count / 2)
        server.serveStalling("/n.png", body: plainPNG, sentBytes: plainPNG.count / 2)
        for (path, interval) in [("/p.jpg", 0), ("/b.jpg", 1), ("/n.png", 1)] {
            let list = try loader(previewEvery: interval)
            defer { try? list.0.shutdown() }
            let ticket = try ask(server.url(path), in: list)
            XCTAssertTrue(server.waitForHits(path, count: 1, timeoutMilliseconds: 10_000))
            server.release(path)
            _ = try waitForImage(ticket, in: list)
            XCTAssertEqual(list.1.events(for: ticket).count, 1, "\(path): the image only")
        }
    }

    func testACancelledTicketGetsNoPreviewAfterItsCancelledEvent() throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        let end = scanEnds(photo, pieces: 1)[1]
        server.serveStalling("/p.jpg", body: photo, sentBytes: end + 2)
        let list = try loader(previewEvery: 1)
        defer { try? list.0.shutdown() }
        let cancelled = try ask(server.url("/p.jpg"), in: list)
        let kept = try XCTUnwrap(try list.0.request(row: 0).ticket, "a second ticket for the row's download")
        _ = try XCTUnwrap(waitForPreview(kept, in: list))
        XCTAssertTrue(try list.0.cancel(ticket: cancelled))
        server.release("/p.jpg")
        _ = try waitForImage(kept, in: list)
        let events = list.1.events(for: cancelled)
        XCTAssertEqual(events.last?.error, .cancelled)
        XCTAssertEqual(events.filter { $0.preview == nil }.count, 1, "CANCELLED, once, last")
    }

    /// The scheduler decides a preview while its ticket is live, and the host cancels
    /// the ticket in its own call before the effect runs: the scheduler has not heard
    /// of the cancel, so the effect runner's check of the front is what drops it. The
    /// effect is carried out here directly, once before the cancel and once after.
    func testAPreviewDecidedBeforeTheHostCancelledIsDropped() throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        // The download stays open and has no scan, so only these previews come.
        server.serveStalling("/p.jpg", body: photo, sentBytes: 100)
        let list = try loader(previewEvery: 1)
        defer { try? list.0.shutdown() }
        let ticket = try ask(server.url("/p.jpg"), in: list)
        let picture = try JPEGDecoder().decode(photo, options: box, limits: DecodeLimits())
        let preview = LoaderEvent(ticket: ticket, row: 0, url: ImageURL(server.url("/p.jpg")),
                                  outcome: .preview(picture), httpStatus: 200)
        var finished: [LoaderEvent] = []
        list.0.loop.carryOut([.preview(preview)], events: &finished)
        XCTAssertTrue(try list.0.cancel(ticket: ticket))
        list.0.loop.carryOut([.preview(preview)], events: &finished)
        XCTAssertTrue(finished.isEmpty, "a preview is no ticket's one event")

        // Events come in the order queued: once another ticket's CANCELLED, queued
        // after both previews, is in, the dropped one would have come before it.
        let marker = try XCTUnwrap(try list.0.request(row: 0).ticket)
        XCTAssertTrue(try list.0.cancel(ticket: marker))
        try dispatch(marker, in: list) { $0.contains { $0.error == .cancelled } }
        let events = list.1.events(for: ticket)
        XCTAssertEqual(events.map { $0.preview != nil }, [true, false], "the live one, then CANCELLED, and no more")
        XCTAssertEqual(events.last?.error, .cancelled)
    }

    // MARK: Helpers

    /// Where the complete scans end, the body handed over in `pieces`-byte arrivals.
    private func scanEnds(_ bytes: [UInt8], pieces: Int) -> [Int] {
        var progress = JPEGScanProgress()
        var ends: [Int] = []
        var have = 0
        while have < bytes.count {
            have = min(bytes.count, have + pieces)
            if let end = bytes[..<have].withUnsafeBufferPointer({ progress.advance(over: $0) }) { ends.append(end) }
        }
        return ends
    }

    private func loader(previewEvery interval: Int) throws -> (ImageLoader, EventLog) {
        var config = LoaderConfiguration()
        config.target = box.target
        config.decodeThreads = 1
        config.previewIntervalMilliseconds = interval
        let log = EventLog()
        return (try ImageLoader(configuration: config) { log.record($0) }, log)
    }

    private func ask(_ url: String, in loader: (ImageLoader, EventLog)) throws -> UInt64 {
        try loader.0.setItems([url])
        try loader.0.setVisibleRange(first: 0, count: 1)
        return try XCTUnwrap(try loader.0.request(row: 0).ticket)
    }

    /// Dispatches until `done` says the events of `ticket` hold what it waits for.
    private func dispatch(_ ticket: UInt64, in loader: (ImageLoader, EventLog),
                          until done: ([LoaderEvent]) -> Bool) throws {
        while !done(loader.1.events(for: ticket)) {
            guard try loader.0.waitForEvents(milliseconds: HangGuard.eventMilliseconds) else { return XCTFail("no event in \(HangGuard.eventMilliseconds) ms") }
            _ = loader.0.dispatch(max: 0)
        }
    }

    private func waitForPreview(_ ticket: UInt64, in loader: (ImageLoader, EventLog)) throws -> DecodedImage? {
        try dispatch(ticket, in: loader) { $0.contains { $0.preview != nil } }
        return loader.1.events(for: ticket).compactMap(\.preview).first
    }

    private func waitForImage(_ ticket: UInt64, in loader: (ImageLoader, EventLog)) throws -> DecodedImage {
        try dispatch(ticket, in: loader) { $0.contains { $0.image != nil || $0.error != nil } }
        let last = loader.1.events(for: ticket).last
        return try XCTUnwrap(last?.image, "\(String(describing: last?.error)) \(last?.message ?? "")")
    }

    private func rows(_ image: DecodedImage) -> [[UInt8]] {
        (0..<image.height).map { Array(image.row($0)) }
    }
}

extension LoaderEvent {
    var preview: DecodedImage? {
        if case .preview(let image) = outcome { return image }
        return nil
    }
}
#endif
