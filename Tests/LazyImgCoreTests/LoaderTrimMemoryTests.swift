#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_3 // ThreadSanitizer group 3 (see the Makefile's tsan)
import Glibc
import TestSupport
import XCTest
@testable import LazyImgCore

/// `trimMemory(.complete)` gives the cache's memory back to the system, not only to
/// malloc (issue 7, item 12a).
final class LoaderTrimMemoryTests: XCTestCase {
    /// Makes a 256 x 200 RGBA image (200 KiB, below a raised mmap threshold, so it
    /// lives in the decode thread's malloc arena) whatever the bytes. After each image
    /// it makes a small block that outlives it, as a process's own long-lived data
    /// does: freed images then sit between live blocks, where free() cannot trim them.
    final class FixedSizeDecoder: ImageDecoding, @unchecked Sendable {
        private(set) var survivors: [UnsafeMutableRawPointer] = []

        func decode(_ data: [UInt8], options: DecodeOptions, limits: DecodeLimits) throws(LoaderError) -> DecodedImage {
            guard let image = DecodedImage(width: 256, height: 200, sourceWidth: 256, sourceHeight: 200),
                  let survivor = malloc(64)
            else { throw .noMemory }
            // Touch every page, as a real decode does, so the memory is resident.
            image.pixels.initializeMemory(as: UInt8.self, repeating: 1, count: image.stride * image.height)
            survivors.append(survivor)
            return image
        }

        deinit {
            survivors.forEach { free($0) }
        }
    }

    /// Resident memory depends on everything this process did before (its arenas,
    /// its threads), so the measurement runs in a fresh process of its own.
    func testCompleteTrimReturnsTheCachesMemoryToTheSystem() throws {
        // ThreadSanitizer replaces malloc with its own allocator, which malloc_trim
        // does not reach.
        try XCTSkipIf(ProcessResources.underThreadSanitizer, "malloc_trim has no effect under ThreadSanitizer")
        let child = try ChildProcess(test: "LazyImgCoreTests.LoaderTrimMemoryTests/testTrimInThisProcess",
                                     environment: ["LAZYIMG_TEST_TRIM_CHILD": "1"])
        XCTAssertEqual(child.wait(), 0, "the trim did not give the memory back (figures: LAZYIMG_TEST_TRIM_CHILD=1 swift test --filter testTrimInThisProcess)")
    }

    func testTrimInThisProcess() throws {
        try XCTSkipIf(ProcessResources.underThreadSanitizer, "malloc_trim has no effect under ThreadSanitizer")
        guard ChildProcess.environment("LAZYIMG_TEST_TRIM_CHILD") != nil else {
            throw XCTSkip("runs in a process of its own, started by testCompleteTrimReturnsTheCachesMemoryToTheSystem")
        }
        // A process that has freed a large block (a downloaded body) has glibc's mmap
        // threshold raised past image sizes; do the same here.
        free(malloc(8 << 20))
        let transport = FakeTransport()
        var config = LoaderConfiguration()
        config.decodeThreads = 1
        config.memoryCacheBytes = 128 << 20
        config.prefetchRows = 0
        let log = EventLog()
        let decoder = FixedSizeDecoder()
        let loader = try ImageLoader(configuration: config, transport: transport,
                                     makeDecoder: { decoder }) { event in
            log.record(LoaderEvent(ticket: event.ticket, row: event.row, url: ImageURL(""), outcome: .failed(.cancelled),
                                   httpStatus: 0, message: ""))
        }
        defer { try? loader.shutdown() }
        transport.waitsFor(loader)
        let count = 200  // 40 MiB of pixels
        try loader.setItems((0..<count).map { "http://example.test/\($0).png" })
        for row in 0..<count {
            _ = try loader.request(row: row)
            transport.complete("http://example.test/\(row).png", with: .success([1]))
        }
        while log.all.count < count {
            XCTAssertTrue(try loader.waitForEvents(milliseconds: HangGuard.eventMilliseconds), "timed out")
            _ = loader.dispatch(max: 0)
        }
        XCTAssertEqual(loader.stats.memoryCacheCount, UInt64(count))

        let before = try XCTUnwrap(ProcessResources.residentBytes)
        loader.trimMemory(.complete)
        let after = try XCTUnwrap(ProcessResources.residentBytes)
        print("trim complete: resident \(before >> 20) MiB -> \(after >> 20) MiB")
        XCTAssertEqual(loader.stats.memoryCacheCount, 0)
        XCTAssertEqual(decoder.survivors.count, count)
        // 40 MiB were cached; at least half of it must leave the process.
        XCTAssertLessThan(after, before - (20 << 20))
    }
}
#endif
