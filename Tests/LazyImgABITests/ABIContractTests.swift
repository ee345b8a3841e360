#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_1 // ThreadSanitizer group 1 (see the Makefile's tsan)
import CLazyImgHeader
import Glibc
import Synchronization
import TestSupport
import XCTest

/// The exported functions called the way a C host calls them, misuse included.
final class ABIContractTests: XCTestCase {
    func testVersionsAgree() {
        XCTAssertEqual(lazyimg_version_number(), UInt32(LAZYIMG_VERSION_NUMBER))
        XCTAssertEqual(String(cString: lazyimg_version_string()), LAZYIMG_VERSION_STRING)
    }

    func testEveryStatusHasAMessageAndUnknownOnesToo() {
        for code in Int32(-20)...Int32(10) {
            let text = String(cString: lazyimg_strerror(lazyimg_status(rawValue: code)))
            XCTAssertFalse(text.isEmpty)
        }
        XCTAssertEqual(String(cString: lazyimg_strerror(lazyimg_status(rawValue: 12345))), "unknown status")
        XCTAssertEqual(String(cString: lazyimg_strerror(LAZYIMG_E_CANCELLED)), "cancelled")
    }

    func testNullPointersGiveErrorsNotCrashes() {
        var image: OpaquePointer?
        var ticket: UInt64 = 0
        XCTAssertEqual(lazyimg_loader_create(nil, nil), LAZYIMG_E_INVALID_ARGUMENT)
        XCTAssertEqual(lazyimg_loader_destroy(nil), LAZYIMG_OK)
        XCTAssertEqual(lazyimg_set_items(nil, nil, 0), LAZYIMG_E_INVALID_ARGUMENT)
        XCTAssertEqual(lazyimg_append_items(nil, nil, 0), LAZYIMG_E_INVALID_ARGUMENT)
        XCTAssertEqual(lazyimg_item_count(nil), 0)
        XCTAssertEqual(lazyimg_set_visible_range(nil, 0, 1), LAZYIMG_E_INVALID_ARGUMENT)
        XCTAssertEqual(lazyimg_set_scroll_state(nil, LAZYIMG_SCROLL_IDLE, 0), LAZYIMG_E_INVALID_ARGUMENT)
        XCTAssertEqual(lazyimg_request(nil, 0, &image, &ticket), LAZYIMG_E_INVALID_ARGUMENT)
        XCTAssertEqual(lazyimg_lookup(nil, 0, &image), LAZYIMG_E_INVALID_ARGUMENT)
        XCTAssertEqual(lazyimg_lookup_url(nil, "http://a.test/", &image), LAZYIMG_E_INVALID_ARGUMENT)
        XCTAssertEqual(lazyimg_cancel(nil, 1), LAZYIMG_E_INVALID_ARGUMENT)
        XCTAssertEqual(lazyimg_event_fd(nil), -1)
        XCTAssertEqual(lazyimg_dispatch(nil, 0), 0)
        XCTAssertEqual(lazyimg_wait(nil, 0), LAZYIMG_E_INVALID_ARGUMENT)
        XCTAssertEqual(lazyimg_get_stats(nil, nil), LAZYIMG_E_INVALID_ARGUMENT)
        lazyimg_trim_memory(nil, LAZYIMG_TRIM_COMPLETE)
        lazyimg_config_init(nil)
        XCTAssertNil(lazyimg_image_retain(nil))
        lazyimg_image_release(nil)
        XCTAssertEqual(lazyimg_image_width(nil), 0)
        XCTAssertEqual(lazyimg_image_height(nil), 0)
        XCTAssertEqual(lazyimg_image_stride(nil), 0)
        XCTAssertNil(lazyimg_image_pixels(nil))
        XCTAssertEqual(lazyimg_image_source_width(nil), 0)
        XCTAssertEqual(lazyimg_image_source_height(nil), 0)

        let host = try? CHost()
        let loader = host?.loader
        XCTAssertEqual(lazyimg_request(loader, 0, nil, &ticket), LAZYIMG_E_INVALID_ARGUMENT)
        XCTAssertEqual(lazyimg_request(loader, 0, &image, nil), LAZYIMG_E_INVALID_ARGUMENT)
        XCTAssertEqual(lazyimg_lookup(loader, 0, nil), LAZYIMG_E_INVALID_ARGUMENT)
        XCTAssertEqual(lazyimg_lookup_url(loader, nil, &image), LAZYIMG_E_INVALID_ARGUMENT)
        XCTAssertEqual(lazyimg_set_items(loader, nil, 3), LAZYIMG_E_INVALID_ARGUMENT)
        XCTAssertEqual(lazyimg_set_items(loader, nil, 0), LAZYIMG_OK)
        XCTAssertEqual(lazyimg_get_stats(loader, nil), LAZYIMG_E_INVALID_ARGUMENT)
    }

    func testConfigIsValidatedAndVersioned() {
        var out: OpaquePointer?
        var config = lazyimg_config()
        lazyimg_config_init(&config)
        XCTAssertEqual(config.struct_size, UInt32(MemoryLayout<lazyimg_config>.size))
        XCTAssertEqual(config.memory_cache_bytes, 64 << 20)
        XCTAssertEqual(config.max_concurrent_downloads, 16)
        XCTAssertEqual(config.prefetch_rows, -1)
        XCTAssertEqual(config.timeout_ms, 15_000)
        XCTAssertEqual(config.max_response_bytes, 32 << 20)
        XCTAssertEqual(config.max_pixels, 50_000_000)
        XCTAssertEqual(config.decode_queue_bytes, 64 << 20)

        func create(_ change: (inout lazyimg_config) -> Void) -> lazyimg_status {
            var c = lazyimg_config()
            lazyimg_config_init(&c)
            change(&c)
            let status = lazyimg_loader_create(&c, &out)
            if status == LAZYIMG_OK { XCTAssertEqual(lazyimg_loader_destroy(out), LAZYIMG_OK) } else { XCTAssertNil(out) }
            return status
        }
        XCTAssertEqual(create { $0.struct_size = 0 }, LAZYIMG_E_INVALID_ARGUMENT)
        XCTAssertEqual(create { $0.delivery = lazyimg_delivery(rawValue: 7) }, LAZYIMG_E_INVALID_ARGUMENT)
        XCTAssertEqual(create { $0.max_concurrent_downloads = 65 }, LAZYIMG_E_INVALID_ARGUMENT)
        XCTAssertEqual(create { $0.prefetch_rows = -2 }, LAZYIMG_E_INVALID_ARGUMENT)
        let smuggled = strdup("lazyimg\r\nX-Evil: 1")
        defer { free(smuggled) }
        XCTAssertEqual(create { $0.user_agent = UnsafePointer(smuggled) }, LAZYIMG_E_INVALID_ARGUMENT)
        XCTAssertEqual(withCStrings(["NoColon", nil]) { headers in create { $0.http_headers = headers } },
                       LAZYIMG_E_INVALID_ARGUMENT)
        XCTAssertEqual(withCStrings(["X-Token: 1", nil]) { headers in create { $0.http_headers = headers } }, LAZYIMG_OK)
        XCTAssertEqual(create { $0.delivery = LAZYIMG_DELIVERY_THREAD }, LAZYIMG_OK)
        XCTAssertEqual(lazyimg_loader_create(nil, &out), LAZYIMG_OK, "NULL config = defaults")
        XCTAssertEqual(lazyimg_loader_destroy(out), LAZYIMG_OK)

        // A config from 0.1 (it ended at retry_after_ms): only its prefix is read.
        var old = lazyimg_config()
        lazyimg_config_init(&old)
        old.struct_size = UInt32((MemoryLayout<lazyimg_config>.offset(of: \.retry_after_ms)! + 4 + 7) / 8 * 8)
        old.output = lazyimg_output(rawValue: 99)  // past its size: must be ignored
        XCTAssertEqual(lazyimg_loader_create(&old, &out), LAZYIMG_OK)
        XCTAssertEqual(lazyimg_loader_destroy(out), LAZYIMG_OK)
    }

    func testBadRowsAndURLsAnswerAtOnce() throws {
        let host = try CHost()
        XCTAssertEqual(host.setItems([nil, "gopher://a.test/x", "http://127.0.0.1:9/ok.png"]), LAZYIMG_OK)
        XCTAssertEqual(lazyimg_item_count(host.loader), 3)
        XCTAssertEqual(host.request(0).status, LAZYIMG_E_NO_IMAGE)
        XCTAssertEqual(host.request(1).status, LAZYIMG_E_BAD_URL)
        XCTAssertEqual(host.request(3).status, LAZYIMG_E_OUT_OF_RANGE)
        XCTAssertEqual(host.request(Int(bitPattern: UInt(UInt.max))).status, LAZYIMG_E_OUT_OF_RANGE, "SIZE_MAX")
        var image: OpaquePointer?
        XCTAssertEqual(lazyimg_lookup(host.loader, 2, &image), LAZYIMG_MISS)
        XCTAssertNil(image)
        XCTAssertEqual(lazyimg_lookup(host.loader, 99, &image), LAZYIMG_E_OUT_OF_RANGE)
        XCTAssertEqual(lazyimg_lookup_url(host.loader, "http://127.0.0.1:9/ok.png", &image), LAZYIMG_MISS)
        XCTAssertEqual(lazyimg_set_visible_range(host.loader, Int(bitPattern: UInt.max), Int(bitPattern: UInt.max)), LAZYIMG_OK)
        XCTAssertEqual(lazyimg_set_scroll_state(host.loader, lazyimg_scroll_state(rawValue: 9), 0), LAZYIMG_E_INVALID_ARGUMENT)
        XCTAssertEqual(lazyimg_set_scroll_state(host.loader, LAZYIMG_SCROLL_DRAGGING, .nan), LAZYIMG_E_INVALID_ARGUMENT)
        XCTAssertEqual(lazyimg_cancel(host.loader, 12345), LAZYIMG_MISS)
        XCTAssertEqual(host.events.count, 0, "errors never produce events")
    }

    func testDeferredTicketsEndCancelledWhenTheListIsReplaced() throws {
        let host = try CHost()
        XCTAssertEqual(host.setItems(["http://127.0.0.1:9/a.png", "http://127.0.0.1:9/b.png"]), LAZYIMG_OK)
        XCTAssertEqual(lazyimg_set_scroll_state(host.loader, LAZYIMG_SCROLL_DRAGGING, 25), LAZYIMG_OK)
        let a = host.request(0)
        let b = host.request(1)
        XCTAssertEqual(a.status, LAZYIMG_DEFERRED)
        XCTAssertEqual(b.status, LAZYIMG_DEFERRED)
        XCTAssertNotEqual(a.ticket, 0)
        XCTAssertNotEqual(a.ticket, b.ticket)
        XCTAssertEqual(host.setItems(["http://127.0.0.1:9/c.png"]), LAZYIMG_OK)
        host.dispatch(until: 2)
        XCTAssertEqual(Set(host.events.map(\.ticket)), [a.ticket, b.ticket])
        for event in host.events {
            XCTAssertEqual(event.type, LAZYIMG_EVENT_FAILED)
            XCTAssertEqual(event.status, LAZYIMG_E_CANCELLED)
            XCTAssertEqual(event.message, "cancelled", "no details of its own: the status's description")
            XCTAssertEqual(event.structSize, UInt32(MemoryLayout<lazyimg_event>.size))
        }
        XCTAssertEqual(host.events.first { $0.ticket == a.ticket }?.url, "http://127.0.0.1:9/a.png")
        let stats = host.stats()
        XCTAssertEqual(stats.deferred, 2)
        XCTAssertEqual(stats.events_delivered, 2)
        XCTAssertEqual(stats.downloads_started, 0)
    }

    func testTheEventFDIsReadableExactlyWhileEventsWait() throws {
        let host = try CHost()
        let fd = lazyimg_event_fd(host.loader)
        XCTAssertGreaterThanOrEqual(fd, 0)
        func readable() -> Bool {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            return poll(&p, 1, 0) == 1
        }
        XCTAssertFalse(readable())
        XCTAssertEqual(lazyimg_wait(host.loader, 0), LAZYIMG_TIMEOUT)
        _ = host.setItems(["http://127.0.0.1:9/a.png", "http://127.0.0.1:9/b.png"])
        _ = lazyimg_set_scroll_state(host.loader, LAZYIMG_SCROLL_DRAGGING, 1)
        let tickets = [host.request(0).ticket, host.request(1).ticket]
        XCTAssertEqual(lazyimg_cancel(host.loader, tickets[0]), LAZYIMG_OK)
        XCTAssertEqual(lazyimg_cancel(host.loader, tickets[0]), LAZYIMG_MISS)
        XCTAssertEqual(lazyimg_cancel(host.loader, tickets[1]), LAZYIMG_OK)
        XCTAssertTrue(readable())
        XCTAssertEqual(lazyimg_wait(host.loader, 0), LAZYIMG_OK)
        XCTAssertEqual(lazyimg_dispatch(host.loader, 1), 1)
        XCTAssertTrue(readable(), "one more waits")
        XCTAssertEqual(lazyimg_dispatch(host.loader, 0), 1)
        XCTAssertFalse(readable())
        XCTAssertEqual(lazyimg_dispatch(host.loader, 0), 0)
    }

    /// A host that dispatches every frame and never asks for the fd pays no system
    /// call for it: a cancel's event and its dispatch neither write nor read the fd.
    /// Once asked for, the fd mirrors the queue, readable at once if events wait.
    func testTheEventFDCostsNoSystemCallUntilTheHostAsksForIt() throws {
        let host = try CHost()
        _ = host.setItems((0..<4).map { "http://127.0.0.1:9/\($0).png" })
        _ = lazyimg_set_scroll_state(host.loader, LAZYIMG_SCROLL_DRAGGING, 1)
        func cancelAndDispatch(_ row: Int) {
            XCTAssertEqual(lazyimg_cancel(host.loader, host.request(row).ticket), LAZYIMG_OK)
            XCTAssertEqual(lazyimg_dispatch(host.loader, 0), 1)
        }
        let unasked = try XCTUnwrap(ThreadSystemCalls.made { cancelAndDispatch(0) },
                                    "/proc/thread-self/io is needed to count system calls")
        XCTAssertEqual(unasked, ThreadSystemCalls(reads: 0, writes: 0))

        XCTAssertEqual(lazyimg_cancel(host.loader, host.request(1).ticket), LAZYIMG_OK)
        let fd = lazyimg_event_fd(host.loader)
        func readable() -> Bool {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            return poll(&p, 1, 0) == 1
        }
        XCTAssertTrue(readable(), "an event waited before the host asked for the fd")
        XCTAssertEqual(lazyimg_dispatch(host.loader, 0), 1)
        XCTAssertFalse(readable())
        let asked = ThreadSystemCalls.made { cancelAndDispatch(2) }
        XCTAssertEqual(asked, ThreadSystemCalls(reads: 1, writes: 1), "the eventfd's signal and drain")
        XCTAssertEqual(host.events.count, 3)
    }

    func testDestroyDeliversEveryOutstandingTicketBeforeItReturns() throws {
        let host = try CHost()
        _ = host.setItems((0..<20).map { "http://127.0.0.1:9/\($0).png" })
        _ = lazyimg_set_scroll_state(host.loader, LAZYIMG_SCROLL_DRAGGING, 5)
        let tickets = (0..<20).map { host.request($0).ticket }
        XCTAssertEqual(host.destroy(), LAZYIMG_OK)
        XCTAssertEqual(Set(host.events.map(\.ticket)), Set(tickets))
        XCTAssertTrue(host.events.allSatisfy { $0.status == LAZYIMG_E_CANCELLED })
    }

    func testDestroyFromInsideACallbackIsMisuseAndChangesNothing() throws {
        for delivery in [LAZYIMG_DELIVERY_HOST, LAZYIMG_DELIVERY_THREAD] {
            let statuses = Mutex<[lazyimg_status]>([])
            let host = try CHost { $0.delivery = delivery }
            let done = expectation(description: "callback ran")
            done.assertForOverFulfill = false  // destroy runs the callback once more
            host.onEvent = { host, _ in
                statuses.withLock { $0.append(lazyimg_loader_destroy(host.loader)) }
                var image: OpaquePointer?
                var ticket: UInt64 = 0
                // Calls back into the loader from a callback are allowed.
                statuses.withLock { $0.append(lazyimg_request(host.loader, 0, &image, &ticket)) }
                done.fulfill()
            }
            _ = host.setItems(["http://127.0.0.1:9/a.png"])
            _ = lazyimg_set_scroll_state(host.loader, LAZYIMG_SCROLL_DRAGGING, 5)
            XCTAssertEqual(lazyimg_cancel(host.loader, host.request(0).ticket), LAZYIMG_OK)
            if delivery == LAZYIMG_DELIVERY_HOST { XCTAssertEqual(lazyimg_dispatch(host.loader, 0), 1) }
            wait(for: [done], timeout: 10)
            XCTAssertEqual(statuses.withLock { $0 }, [LAZYIMG_E_MISUSE, LAZYIMG_DEFERRED])
            XCTAssertEqual(host.destroy(), LAZYIMG_OK)
            XCTAssertEqual(host.events.count, 2, "the ticket made in the callback got its event too")
        }
    }

    func testStatsHonourTheCallersStructSize() throws {
        let host = try CHost()
        // 0.1 and 0.2 ended at in_flight; a newer caller's bigger struct gets our prefix.
        var released = lazyimg_stats()
        released.struct_size = UInt32(MemoryLayout<lazyimg_stats>.offset(of: \.in_flight)! + 8)
        XCTAssertEqual(lazyimg_get_stats(host.loader, &released), LAZYIMG_OK)
        XCTAssertEqual(released.struct_size, UInt32(MemoryLayout<lazyimg_stats>.offset(of: \.in_flight)! + 8))
        var zero = lazyimg_stats()
        XCTAssertEqual(lazyimg_get_stats(host.loader, &zero), LAZYIMG_E_INVALID_ARGUMENT)
    }

    func testThreadDeliveryHasNoFDAndRefusesWait() throws {
        let host = try CHost { $0.delivery = LAZYIMG_DELIVERY_THREAD }
        XCTAssertEqual(lazyimg_event_fd(host.loader), -1)
        XCTAssertEqual(lazyimg_wait(host.loader, 0), LAZYIMG_E_MISUSE)
        XCTAssertEqual(lazyimg_dispatch(host.loader, 0), 0)
    }
}
#endif
