#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_2 // ThreadSanitizer group 2 (see the Makefile's tsan)
import CLazyImgHeader
import XCTest

/// `struct_size` must be a size the struct has had in a released header (or at least
/// the library's own): a size ending inside a field would copy half a pointer.
final class StructSizeTests: XCTestCase {
    private func create(structSize: Int) -> lazyimg_status {
        var config = lazyimg_config()
        lazyimg_config_init(&config)
        config.struct_size = UInt32(structSize)
        var out: OpaquePointer?
        let status = lazyimg_loader_create(&config, &out)
        if status == LAZYIMG_OK { XCTAssertEqual(lazyimg_loader_destroy(out), LAZYIMG_OK) } else { XCTAssertNil(out) }
        return status
    }

    func testConfigSizeInsideAFieldIsRefused() {
        // 12 ends in the middle of on_event; 4 and 8 hold no whole callback either.
        for size in [4, 8, 12, 20, MemoryLayout<lazyimg_config>.offset(of: \.output)!] {
            XCTAssertEqual(create(structSize: size), LAZYIMG_E_INVALID_ARGUMENT, "struct_size \(size)")
        }
    }

    func testReleasedAndCurrentConfigSizesAreAccepted() {
        let through01 = MemoryLayout<lazyimg_config>.offset(of: \.retry_after_ms)! + 4
        let through02 = MemoryLayout<lazyimg_config>.offset(of: \.output)! + 4
        let alignment = MemoryLayout<lazyimg_config>.alignment
        for end in [through01, through02] {
            XCTAssertEqual(create(structSize: (end + alignment - 1) / alignment * alignment), LAZYIMG_OK, "ends at \(end)")
        }
        XCTAssertEqual(create(structSize: MemoryLayout<lazyimg_config>.size), LAZYIMG_OK)
        XCTAssertEqual(create(structSize: MemoryLayout<lazyimg_config>.size + 64), LAZYIMG_OK, "a newer header's struct")
    }

    func testReleasedStatsSizesAreFilledToTheirEnd() throws {
        let host = try CHost()
        let alignment = MemoryLayout<lazyimg_stats>.alignment
        for end in [MemoryLayout<lazyimg_stats>.offset(of: \.in_flight)! + 8,
                    MemoryLayout<lazyimg_stats>.offset(of: \.decodes_skipped)! + 8] {
            var stats = lazyimg_stats()
            stats.struct_size = UInt32((end + alignment - 1) / alignment * alignment)
            stats.bytes_resumed = 777
            XCTAssertEqual(lazyimg_get_stats(host.loader, &stats), LAZYIMG_OK, "ends at \(end)")
            XCTAssertEqual(Int(stats.struct_size), end)
            XCTAssertEqual(stats.bytes_resumed, 777, "nothing written past a 0.3 caller's struct")
        }
    }

    func testStatsSizeInsideAFieldIsRefused() throws {
        let host = try CHost()
        for size in [4, 12, MemoryLayout<lazyimg_stats>.offset(of: \.memory_hits)!] {
            var stats = lazyimg_stats()
            stats.struct_size = UInt32(size)
            stats.requests = 777
            XCTAssertEqual(lazyimg_get_stats(host.loader, &stats), LAZYIMG_E_INVALID_ARGUMENT, "struct_size \(size)")
            XCTAssertEqual(stats.requests, 777, "nothing written")
        }
    }
}
#endif
