import CLazyImgHeader
import LazyImgCore
import TestSupport
import XCTest

/// What a C host keeps per event: copied out of the borrowed `lazyimg_event`.
struct ReceivedEvent: Sendable {
    var type: lazyimg_event_type
    var row: Int
    var ticket: UInt64
    var status: lazyimg_status
    var httpStatus: Int32
    var source: lazyimg_source
    var url: String
    var width: UInt32
    var height: UInt32
    var structSize: UInt32
    var message: String
    /// A DATA event's body, copied out of the borrowed pointer.
    var data: [UInt8] = []
    /// lazyimg_image_is_damaged of the event's image.
    var damaged: Int32 = 0
}

/// Plays the C host: owns a loader made through the C API and records its events.
/// The callback reaches this object through user_data, as a C program would.
final class CHost: @unchecked Sendable {
    private(set) var loader: OpaquePointer?
    private let received = Locked<[ReceivedEvent]>([])
    /// Runs inside the callback, after recording (for reentrancy tests).
    var onEvent: (@Sendable (CHost, ReceivedEvent) -> Void)?

    init(_ configure: (inout lazyimg_config) -> Void = { _ in }, file: StaticString = #filePath, line: UInt = #line) throws {
        var config = lazyimg_config()
        lazyimg_config_init(&config)
        config.on_event = { userData, ev in
            guard let userData, let ev else { return }
            let host = Unmanaged<CHost>.fromOpaque(userData).takeUnretainedValue()
            let e = ev.pointee
            let event = ReceivedEvent(
                type: e.type, row: e.row, ticket: e.ticket, status: e.status, httpStatus: e.http_status,
                source: e.source, url: e.url.map { String(cString: $0) } ?? "",
                width: lazyimg_image_width(e.image), height: lazyimg_image_height(e.image), structSize: e.struct_size,
                message: e.message.map { String(cString: $0) } ?? "<NULL>",
                data: e.data.map { Array(UnsafeBufferPointer(start: $0, count: e.data_size)) } ?? [],
                damaged: lazyimg_image_is_damaged(e.image))
            host.received.withLock { $0.append(event) }
            host.onEvent?(host, event)
        }
        config.user_data = Unmanaged.passUnretained(self).toOpaque()
        configure(&config)
        var created: OpaquePointer?
        let status = lazyimg_loader_create(&config, &created)
        XCTAssertEqual(status, LAZYIMG_OK, file: file, line: line)
        loader = created
    }

    deinit {
        if let loader { _ = lazyimg_loader_destroy(loader) }
    }

    var events: [ReceivedEvent] { received.withLock { $0 } }

    func destroy() -> lazyimg_status {
        let status = lazyimg_loader_destroy(loader)
        if status == LAZYIMG_OK { loader = nil }
        return status
    }

    func setItems(_ urls: [String?]) -> lazyimg_status {
        withCStrings(urls) { lazyimg_set_items(loader, $0, urls.count) }
    }

    /// `lazyimg_request`, releasing any image it returns.
    func request(_ row: Int) -> (status: lazyimg_status, ticket: UInt64, width: UInt32) {
        var image: OpaquePointer?
        var ticket: UInt64 = 0
        let status = lazyimg_request(loader, row, &image, &ticket)
        defer { lazyimg_image_release(image) }
        return (status, ticket, lazyimg_image_width(image))
    }

    /// Dispatches on this thread until `count` events have arrived, waiting with
    /// lazyimg_wait (never sleeping); fails after `HangGuard.eventMilliseconds`.
    func dispatch(until count: Int, file: StaticString = #filePath, line: UInt = #line) {
        while events.count < count {
            guard lazyimg_wait(loader, Int32(HangGuard.eventMilliseconds)) == LAZYIMG_OK else {
                let s = stats()
                XCTFail("timed out with \(events.count) of \(count) events; started \(s.downloads_started), "
                        + "failed \(s.downloads_failed), cancelled \(s.downloads_cancelled), in flight \(s.in_flight), "
                        + "decoded \(s.images_decoded)", file: file, line: line)
                return
            }
            _ = lazyimg_dispatch(loader, 0)
        }
    }

    /// Dispatches until `count` events have arrived or `milliseconds` passed; whether
    /// they all came. For tests that time how long an event takes.
    func dispatch(until count: Int, withinMilliseconds milliseconds: Int) -> Bool {
        let clock = MonotonicClock()
        let deadline = clock.nowMilliseconds + Int64(milliseconds)
        while events.count < count {
            let left = deadline - clock.nowMilliseconds
            guard left > 0, lazyimg_wait(loader, Int32(left)) == LAZYIMG_OK else { return events.count >= count }
            _ = lazyimg_dispatch(loader, 0)
        }
        return true
    }

    /// Yields the core until `condition` holds, failing after 10 s: for what the
    /// loader's scheduler thread decides moments after a call returns.
    func waitUntil(_ what: String, file: StaticString = #filePath, line: UInt = #line, _ condition: () -> Bool) {
        let clock = MonotonicClock()
        let deadline = clock.nowMilliseconds + 10_000
        while !condition() {
            guard clock.nowMilliseconds < deadline else { return XCTFail("timed out: \(what)", file: file, line: line) }
            sched_yield()
        }
    }

    func stats() -> lazyimg_stats {
        var stats = lazyimg_stats()
        stats.struct_size = UInt32(MemoryLayout<lazyimg_stats>.size)
        XCTAssertEqual(lazyimg_get_stats(loader, &stats), LAZYIMG_OK)
        return stats
    }
}

/// Calls `body` with a C array of C strings (NULL for nil entries).
func withCStrings<T>(_ strings: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) throws -> T) rethrows -> T {
    let copies = strings.map { $0.map { strdup($0) } ?? nil }
    defer { copies.forEach { free($0) } }
    let pointers = copies.map { $0.map { UnsafePointer($0) } }
    return try pointers.withUnsafeBufferPointer { try body($0.baseAddress) }
}
