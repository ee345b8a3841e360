import Glibc
@testable import LazyImgCore
import TestSupport
import XCTest

/// A loader for one box and the events it sent, for the tests of fetching a file's
/// first pass only (`DCScanFetchTests`, `PNGFirstPassFetchTests`,
/// `WholeFirstPassFetchTests`).
enum FirstPassFetch {
    static func loader(session: ImageSession? = nil, box: Int, _ change: (inout LoaderConfiguration) -> Void = { _ in })
        throws -> (ImageLoader, EventLog) {
        var config = LoaderConfiguration()
        config.session = session
        config.target = TargetSize(width: box, height: box)
        config.decodeThreads = 1
        change(&config)
        let log = EventLog()
        return (try ImageLoader(configuration: config) { log.record($0) }, log)
    }

    /// Where `bytes`'s first pass ends for `box` (`FirstPass.examine`); fails the test
    /// when that pass does not serve the box.
    static func firstPassEnd(_ bytes: [UInt8], for box: DecodeOptions, file: StaticString = #filePath,
                             line: UInt = #line) throws -> Int {
        try XCTUnwrap({ if case .suffice(let end) = FirstPass.examine(bytes, for: box) { end } else { nil } }(),
                      "the file's first pass does not serve the box", file: file, line: line)
    }

    /// Whether two images have the same size and every pixel the same.
    static func samePixels(_ a: DecodedImage, _ b: DecodedImage) -> Bool {
        a.width == b.width && a.height == b.height && (0..<a.height).allSatisfy { Array(a.row($0)) == Array(b.row($0)) }
    }

    /// How many bytes the first Range asks for on a site whose files' first pass
    /// ended at `end` (`FirstPassHints`).
    static func hintedRange(_ end: Int) -> Int {
        min(FirstPassHints.largestRange, max(FirstPassHints.smallestRange, end + end / 4 + 512))
    }

    /// Shows `file` from `path` in `loader`, so that its network knows the server
    /// serves progressive files and byte ranges: its next files ask for their start.
    static func learnSite(_ server: HTTPTestServer, _ file: [UInt8], in loader: (ImageLoader, EventLog),
                          path: String = "/warm") throws {
        server.serveRanges(path, body: file, validator: "\"warm\"")
        _ = try show(server.url(path), in: loader)
        XCTAssertEqual(server.requests(path).map { $0.header("Range") }, [nil], "a new site's file comes whole")
    }

    /// The image for `url` in row 0: from memory, or its event's, waited for.
    static func show(_ url: String, in loader: (ImageLoader, EventLog), file: StaticString = #filePath,
                     line: UInt = #line) throws -> DecodedImage {
        try loader.0.setItems([url])
        try loader.0.setVisibleRange(first: 0, count: 1)
        let answer = try loader.0.request(row: 0)
        if let image = answer.image { return image }
        let event = try wait(for: XCTUnwrap(answer.ticket, file: file, line: line), in: loader, file: file, line: line)
        return try XCTUnwrap(event.image, "\(String(describing: event.error)) \(event.message)", file: file, line: line)
    }

    /// The event row 0 gets for `url`, which memory cannot answer.
    static func event(_ url: String, in loader: (ImageLoader, EventLog), file: StaticString = #filePath,
                      line: UInt = #line) throws -> LoaderEvent {
        try loader.0.setItems([url])
        try loader.0.setVisibleRange(first: 0, count: 1)
        return try wait(for: XCTUnwrap(loader.0.request(row: 0).ticket, file: file, line: line), in: loader,
                        file: file, line: line)
    }

    private static func wait(for ticket: UInt64, in loader: (ImageLoader, EventLog), file: StaticString,
                             line: UInt) throws -> LoaderEvent {
        try dispatch(loader.0, until: { !loader.1.events(for: ticket).isEmpty })
        return try XCTUnwrap(loader.1.events(for: ticket).first, "no event", file: file, line: line)
    }

    /// Dispatches `loader`'s events as they come until `done`, or until none came
    /// within the hang guard (the caller's assertions then say what is missing).
    static func dispatch(_ loader: ImageLoader, until done: () -> Bool) throws {
        while !done() {
            guard try loader.waitForEvents(milliseconds: HangGuard.eventMilliseconds) else { return }
            _ = loader.dispatch(max: 0)
        }
    }

    /// What `smallThenLarge` saw.
    struct SmallThenLarge {
        /// What the small box's loader downloaded.
        var smallBytes: UInt64
        var large: DecodedImage, largeStats: LoaderStats
        /// The large box's last request.
        var asked: HTTPTestRequest?
    }

    /// `path` in a loader of `small` px, then (after `between`) in one of `large` px
    /// of the same session.
    static func smallThenLarge(_ server: HTTPTestServer, _ path: String, small: Int, large: Int,
                               between: () -> Void = {}) throws -> SmallThenLarge {
        let session = try ImageSession(diskCacheDirectory: nil, diskCacheBytes: 0, maxConcurrentDownloads: 4)
        let list = try loader(session: session, box: small)
        defer { try? list.0.shutdown() }
        XCTAssertEqual(try show(server.url(path), in: list).width, small)
        between()
        let detail = try loader(session: session, box: large)
        defer { try? detail.0.shutdown() }
        let image = try show(server.url(path), in: detail)
        return SmallThenLarge(smallBytes: list.0.stats.bytesDownloaded, large: image, largeStats: detail.0.stats,
                              asked: server.requests(path).last)
    }

    /// What `diskRoundTrip` saw.
    struct DiskRoundTrip {
        /// The small box again, in a new loader on the same disk cache.
        var again: DecodedImage, againStats: LoaderStats
        /// Then the large box, in a third; and the server's requests for the path before it.
        var large: DecodedImage, largeStats: LoaderStats, requestsBeforeLarge: Int
    }

    /// `path` at `small` in a loader with a disk cache, again at `small` in a new one,
    /// then at `large` in a third.
    static func diskRoundTrip(_ server: HTTPTestServer, _ path: String, small: Int, large: Int) throws -> DiskRoundTrip {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        func diskLoader(_ box: Int) throws -> (ImageLoader, EventLog) {
            try loader(box: box) { $0.diskCacheDirectory = directory.path }
        }
        do {
            let list = try diskLoader(small)
            XCTAssertEqual(try show(server.url(path), in: list).width, small)
            try list.0.shutdown()
        }
        let again = try diskLoader(small)
        let againImage = try show(server.url(path), in: again)
        try again.0.shutdown()
        let hits = server.hits(path)
        let detail = try diskLoader(large)
        defer { try? detail.0.shutdown() }
        let largeImage = try show(server.url(path), in: detail)
        return DiskRoundTrip(again: againImage, againStats: again.0.stats, large: largeImage, largeStats: detail.0.stats,
                             requestsBeforeLarge: hits)
    }

    /// Peak signal to noise over R, G and B, in dB.
    static func psnr(_ a: DecodedImage, _ b: DecodedImage) -> Double {
        var squares = 0.0, count = 0.0
        for y in 0..<a.height {
            for (index, (p, q)) in zip(a.row(y), b.row(y)).enumerated() where index % 4 != 3 {
                squares += Double((Int(p) - Int(q)) * (Int(p) - Int(q)))
                count += 1
            }
        }
        return squares == 0 ? .infinity : 10 * log10(255 * 255 / (squares / count))
    }
}
