#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_3 // ThreadSanitizer group 3 (see the Makefile's tsan)
import Glibc
import TestSupport
import XCTest
@testable import LazyImgCore

/// Scrolls a long list through a small cache with real libcurl and real decoders:
/// resident memory and open file descriptors must stay flat once warmed up (issue 7,
/// "soak"). Bounded by rows, not time; prints its duration and figures.
final class LoaderSoakTests: XCTestCase {
    func testScrollingThousandsOfRowsKeepsMemoryAndFileDescriptorsFlat() throws {
        // Resident memory under ThreadSanitizer includes its shadow memory and its
        // allocator's caches, which measure the sanitizer rather than the loader (and
        // the run is ten times slower). The stress test covers the threads under it.
        try XCTSkipIf(ProcessResources.underThreadSanitizer, "memory figures under ThreadSanitizer measure the sanitizer")
        let server = try HTTPTestServer()
        defer { server.stop() }
        let bodies = [makeJPEG(width: 320, height: 240), makePNG(width: 200, height: 150)]
        let rowCount = 1_000, screen = 10, warmUpRows = 250
        for row in 0..<rowCount {
            server.serve("/\(row)", body: bodies[row % bodies.count])
        }

        var config = LoaderConfiguration()
        config.memoryCacheBytes = 256 << 10  // about 15 thumbnails
        config.target = TargetSize(width: 64, height: 64)
        config.prefetchRows = screen
        let delivered = Locked<(events: Int, images: Int)>((0, 0))
        let loader = try ImageLoader(configuration: config) { event in
            delivered.withLock { state in
                state.events += 1
                if case .image = event.outcome { state.images += 1 }
            }
        }
        defer { try? loader.shutdown() }
        try loader.setItems((0..<rowCount).map { server.url("/\($0)") })

        let start = MonotonicClock().nowMilliseconds
        var warm: (rss: Int, fds: Int)?
        var hits = 0
        for top in stride(from: 0, to: rowCount, by: screen) {
            try loader.setVisibleRange(first: top, count: screen)
            var tickets = 0
            for row in top..<top + screen {
                // Prefetched rows are often in memory already: an image now, no event.
                if try loader.request(row: row).ticket != nil { tickets += 1 } else { hits += 1 }
            }
            let target = delivered.withLock { $0.events } + tickets
            while delivered.withLock({ $0.events }) < target {
                XCTAssertTrue(try loader.waitForEvents(milliseconds: HangGuard.eventMilliseconds), "no event in \(HangGuard.eventMilliseconds) ms at row \(top)")
                _ = loader.dispatch(max: 0)
            }
            if top + screen == warmUpRows {
                warm = (try XCTUnwrap(ProcessResources.residentBytes), try XCTUnwrap(ProcessResources.openFileDescriptors))
            }
        }
        let seconds = Double(MonotonicClock().nowMilliseconds - start) / 1000
        let end = (rss: try XCTUnwrap(ProcessResources.residentBytes), fds: try XCTUnwrap(ProcessResources.openFileDescriptors))
        let warmed = try XCTUnwrap(warm)
        let images = delivered.withLock { $0.images } + hits
        print("soak: \(rowCount) rows in \(seconds) s, \(images) images (\(hits) from memory); RSS \(warmed.rss >> 20) MiB after "
              + "\(warmUpRows) rows, \(end.rss >> 20) MiB at the end; fds \(warmed.fds) -> \(end.fds)")
        XCTAssertEqual(images, rowCount)
        XCTAssertLessThan(end.rss, warmed.rss + (16 << 20), "resident memory grew")
        XCTAssertLessThanOrEqual(end.fds, warmed.fds + 2, "file descriptors grew")
    }
}
#endif
