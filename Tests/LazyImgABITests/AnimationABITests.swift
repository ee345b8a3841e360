#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_5 // ThreadSanitizer group 5 (see the Makefile's tsan)
import CLazyImgHeader
import Glibc
import LazyImgCore
import TestSupport
import XCTest

/// The animation calls as C uses them: frames by time and by index from a loopback
/// server's GIF and WebP, the image's frame facts, and every misuse.
final class AnimationABITests: XCTestCase {
    private var server: HTTPTestServer!
    static let box: UInt32 = 32

    override func setUpWithError() throws {
        server = try HTTPTestServer()
        server.serve("/a.gif", body: ColourCycle.gif(width: 48, height: 40, count: 12, delay: 4))
        server.serve("/a.webp", body: ColourCycle.webp(width: 48, height: 40, count: 6, duration: 30, loopCount: 2))
        server.serve("/still.png", body: makePNG(width: 8, height: 8))
    }

    override func tearDown() {
        server.stop()
    }

    private func host(bufferBytes: UInt64) throws -> CHost {
        let host = try CHost { config in
            config.target_width = Self.box
            config.target_height = Self.box
            config.animation_buffer_bytes = bufferBytes
        }
        XCTAssertEqual(host.setItems([server.url("/a.gif"), server.url("/a.webp"), server.url("/still.png"), nil]),
                       LAZYIMG_OK)
        XCTAssertEqual(lazyimg_set_visible_range(host.loader, 0, 4), LAZYIMG_OK)
        for row in 0..<3 { XCTAssertEqual(host.request(row).status, LAZYIMG_PENDING) }
        host.dispatch(until: 3)
        return host
    }

    /// Polls lazyimg_frame_at as a host's frame loop does, yielding between calls,
    /// until the frame is decoded; fails after 10 s.
    private func frameWhenReady(_ host: CHost, row: Int, time: UInt64, file: StaticString = #filePath,
                                line: UInt = #line) -> (image: OpaquePointer?, frame: UInt32, next: UInt64) {
        let deadline = MonotonicClock().nowMilliseconds + 10_000
        while true {
            var image: OpaquePointer?
            var frame: UInt32 = 99
            var next: UInt64 = 0
            let status = lazyimg_frame_at(host.loader, row, time, &image, &frame, &next)
            if status == LAZYIMG_OK { return (image, frame, next) }
            XCTAssertEqual(status, LAZYIMG_NOT_YET, file: file, line: line)
            XCTAssertNil(image, file: file, line: line)
            guard MonotonicClock().nowMilliseconds < deadline else {
                XCTFail("frame at \(time) of row \(row) not decoded after 10 s", file: file, line: line)
                return (nil, frame, next)
            }
            sched_yield()
        }
    }

    private func frameShown(_ image: OpaquePointer?, count: Int) -> Int? {
        guard let pixels = lazyimg_image_pixels(image) else { return nil }
        return ColourCycle.frame(ofPixel: Array(UnsafeBufferPointer(start: pixels, count: 4)), count: count)
    }

    func testFramesPlayByTimeAndByIndex() throws {
        let host = try host(bufferBytes: 64 << 10)
        var first: OpaquePointer?
        XCTAssertEqual(lazyimg_lookup(host.loader, 0, &first), LAZYIMG_OK)
        defer { lazyimg_image_release(first) }
        XCTAssertEqual(lazyimg_image_frame_count(first), 12)
        XCTAssertEqual(lazyimg_image_frame_duration(first, 3), 40)
        XCTAssertEqual(lazyimg_image_frame_duration(first, 12), 0, "past the last frame")
        XCTAssertEqual(lazyimg_image_loop_count(first), 0, "forever")
        XCTAssertEqual(lazyimg_image_is_animated(first), 1)

        for (time, expected) in [(UInt64(0), 0), (41, 1), (479, 11), (480 + 85, 2)] {
            let found = frameWhenReady(host, row: 0, time: time)
            defer { lazyimg_image_release(found.image) }
            XCTAssertEqual(Int(found.frame), expected, "at \(time)")
            XCTAssertEqual(frameShown(found.image, count: 12), expected, "at \(time)")
            XCTAssertEqual([lazyimg_image_width(found.image), lazyimg_image_height(found.image)], [32, 27])
            XCTAssertEqual(found.next, time - time % 40 + 40)
        }

        var image: OpaquePointer?
        let deadline = MonotonicClock().nowMilliseconds + 10_000
        var status = LAZYIMG_NOT_YET
        while status == LAZYIMG_NOT_YET && MonotonicClock().nowMilliseconds < deadline {
            status = lazyimg_frame(host.loader, 0, 7, &image)
            if status == LAZYIMG_NOT_YET { sched_yield() }
        }
        XCTAssertEqual(status, LAZYIMG_OK)
        XCTAssertEqual(frameShown(image, count: 12), 7)
        lazyimg_image_release(image)

        let stats = host.stats()
        XCTAssertGreaterThan(stats.frames_decoded, 0)
        XCTAssertGreaterThan(stats.animation_bytes, 0)
        XCTAssertLessThanOrEqual(stats.animation_bytes, UInt64(64 << 10) + 48 * 40 * 4, "buffer and canvas")
        XCTAssertGreaterThanOrEqual(stats.memory_cache_bytes, stats.animation_bytes)
    }

    func testAWebPPlaysItsLoopCountThenStays() throws {
        let host = try host(bufferBytes: 64 << 10)
        var first: OpaquePointer?
        XCTAssertEqual(lazyimg_lookup(host.loader, 1, &first), LAZYIMG_OK)
        XCTAssertEqual(lazyimg_image_frame_count(first), 6)
        XCTAssertEqual(lazyimg_image_loop_count(first), 2)
        XCTAssertEqual(lazyimg_image_frame_duration(first, 0), 30)
        lazyimg_image_release(first)
        let during = frameWhenReady(host, row: 1, time: 180 + 95)
        XCTAssertEqual(during.frame, 3)
        XCTAssertEqual(frameShown(during.image, count: 6), 3)
        lazyimg_image_release(during.image)
        let after = frameWhenReady(host, row: 1, time: 10_000)
        XCTAssertEqual(after.frame, 5, "the last frame stays after two plays")
        XCTAssertEqual(after.next, UInt64.max)
        lazyimg_image_release(after.image)
    }

    /// The largest buffer a host can ask for holds every frame, and nothing in the
    /// accounting overflows.
    func testTheLargestBufferKeepsEveryFrame() throws {
        let host = try host(bufferBytes: UInt64.max)
        for time in Swift.stride(from: UInt64(0), to: 480, by: 40) {
            let found = frameWhenReady(host, row: 0, time: time)
            XCTAssertEqual(frameShown(found.image, count: 12), Int(time / 40))
            lazyimg_image_release(found.image)
        }
        XCTAssertEqual(host.stats().frames_decoded, 11, "each of the GIF's frames after the first, once")
    }

    /// The config field at its default: images are first frames and nothing plays.
    func testWithoutABufferImagesAreTheirOwnOnlyFrame() throws {
        let host = try host(bufferBytes: 0)
        for row in 0..<3 {
            var first: OpaquePointer?
            XCTAssertEqual(lazyimg_lookup(host.loader, row, &first), LAZYIMG_OK)
            XCTAssertEqual(lazyimg_image_frame_count(first), 1)
            XCTAssertEqual(lazyimg_image_loop_count(first), 1)
            XCTAssertEqual(lazyimg_image_frame_duration(first, 0), 0)
            XCTAssertEqual(lazyimg_image_is_animated(first), row < 2 ? 1 : 0)
            var frame: OpaquePointer?
            var index: UInt32 = 9
            var next: UInt64 = 0
            XCTAssertEqual(lazyimg_frame_at(host.loader, row, 5_000, &frame, &index, &next), LAZYIMG_OK)
            XCTAssertEqual(frame, first, "the image itself")
            XCTAssertEqual(index, 0)
            XCTAssertEqual(next, UInt64.max)
            XCTAssertEqual(lazyimg_frame(host.loader, row, 1, &frame), LAZYIMG_E_OUT_OF_RANGE)
            XCTAssertNil(frame)
            lazyimg_image_release(first)
            lazyimg_image_release(first)
        }
        XCTAssertEqual(host.stats().frames_decoded, 0)
        XCTAssertEqual(host.stats().animation_bytes, 0)
    }

    func testNullsAndMisuse() throws {
        XCTAssertEqual(lazyimg_image_frame_count(nil), 0)
        XCTAssertEqual(lazyimg_image_frame_duration(nil, 0), 0)
        XCTAssertEqual(lazyimg_image_loop_count(nil), 0)
        XCTAssertEqual(String(cString: lazyimg_strerror(LAZYIMG_NOT_YET)), "frame not decoded yet: ask again")

        var image: OpaquePointer? = OpaquePointer(bitPattern: 0x10)
        var frame: UInt32 = 7
        var next: UInt64 = 7
        XCTAssertEqual(lazyimg_frame_at(nil, 0, 0, &image, &frame, &next), LAZYIMG_E_INVALID_ARGUMENT)
        XCTAssertNil(image)
        XCTAssertEqual(frame, 0)
        XCTAssertEqual(next, UInt64.max)
        XCTAssertEqual(lazyimg_frame(nil, 0, 0, &image), LAZYIMG_E_INVALID_ARGUMENT)

        let host = try host(bufferBytes: 1 << 20)
        XCTAssertEqual(lazyimg_frame_at(host.loader, 0, 0, nil, &frame, &next), LAZYIMG_E_INVALID_ARGUMENT)
        XCTAssertEqual(lazyimg_frame(host.loader, 0, 0, nil), LAZYIMG_E_INVALID_ARGUMENT)
        // The optional outs may be NULL.
        XCTAssertEqual(lazyimg_frame_at(host.loader, 2, 0, &image, nil, nil), LAZYIMG_OK)
        lazyimg_image_release(image)
        XCTAssertEqual(lazyimg_frame_at(host.loader, 4, 0, &image, nil, nil), LAZYIMG_E_OUT_OF_RANGE)
        XCTAssertEqual(lazyimg_frame_at(host.loader, Int.max, 0, &image, nil, nil), LAZYIMG_E_OUT_OF_RANGE)
        XCTAssertEqual(lazyimg_frame_at(host.loader, 3, 0, &image, nil, nil), LAZYIMG_E_NO_IMAGE)
        XCTAssertEqual(lazyimg_frame(host.loader, 0, 12, &image), LAZYIMG_E_OUT_OF_RANGE)
        XCTAssertEqual(lazyimg_frame(host.loader, 0, UInt32.max, &image), LAZYIMG_E_OUT_OF_RANGE)
        let latest = lazyimg_frame_at(host.loader, 0, UInt64.max, &image, &frame, &next)
        XCTAssertTrue(latest == LAZYIMG_OK || latest == LAZYIMG_NOT_YET, "the largest time is a time")
        XCTAssertEqual(next, UInt64.max, "the next frame's time saturates")
        lazyimg_image_release(image)

        // Not in memory (yet, or any more): MISS, and frames come once it is requested.
        lazyimg_trim_memory(host.loader, LAZYIMG_TRIM_COMPLETE)
        XCTAssertEqual(lazyimg_frame_at(host.loader, 0, 0, &image, &frame, &next), LAZYIMG_MISS)
        XCTAssertNil(image)
        XCTAssertEqual(lazyimg_frame(host.loader, 0, 11, &image), LAZYIMG_MISS)
        XCTAssertEqual(host.stats().animation_bytes, 0)
        XCTAssertEqual(host.request(0).status, LAZYIMG_PENDING)
        host.dispatch(until: 4)
        let back = frameWhenReady(host, row: 0, time: 100)
        XCTAssertEqual(back.frame, 2)
        lazyimg_image_release(back.image)
    }

    /// Encoded output hands out files, not frames: each is its own one frame.
    func testEncodedOutputHasNoFrames() throws {
        let host = try CHost { config in
            config.output = LAZYIMG_OUTPUT_ENCODED
            config.animation_buffer_bytes = 1 << 20
        }
        XCTAssertEqual(host.setItems([server.url("/a.gif")]), LAZYIMG_OK)
        XCTAssertEqual(host.request(0).status, LAZYIMG_PENDING)
        host.dispatch(until: 1)
        var file: OpaquePointer?
        XCTAssertEqual(lazyimg_lookup(host.loader, 0, &file), LAZYIMG_OK)
        XCTAssertEqual(lazyimg_image_frame_count(file), 0)
        XCTAssertEqual(lazyimg_image_loop_count(file), 0)
        var frame: OpaquePointer?
        XCTAssertEqual(lazyimg_frame(host.loader, 0, 0, &frame), LAZYIMG_OK)
        XCTAssertEqual(frame, file)
        lazyimg_image_release(frame)
        lazyimg_image_release(file)
    }
}
#endif
