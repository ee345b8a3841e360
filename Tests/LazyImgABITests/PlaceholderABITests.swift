#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_3 // ThreadSanitizer group 3 (see the Makefile's tsan)
import CLazyImgHeader
import Foundation
import Glibc
import LazyImgCore
import TestSupport
import XCTest

/// Placeholder hashes through the C API: given per row, answered at once beside the
/// ticket, never taken for the image, which still arrives as the ticket's one event.
final class PlaceholderABITests: XCTestCase {
    private var server: HTTPTestServer!
    static let blurHash = "LEHV6nWB2yk8pyo0adR*.7kCMdnj"
    /// A landscape photo's ThumbHash (7:5 by its header), from the reference encoder.
    static let thumbHash = "2hgGDYB4dWiPd5dleGiIl1lvo/JE"

    override func setUpWithError() throws {
        server = try HTTPTestServer()
    }

    override func tearDown() {
        server.stop()
    }

    private func box(_ width: UInt32, _ height: UInt32, _ more: @escaping (inout lazyimg_config) -> Void = { _ in })
        -> (inout lazyimg_config) -> Void {
        { $0.target_width = width; $0.target_height = height; more(&$0) }
    }

    /// lazyimg_set_placeholders, with what it says of a refused hash.
    private func setPlaceholders(_ host: CHost, first: Int, _ kind: lazyimg_placeholder_kind, _ hashes: [String?])
        -> (status: lazyimg_status, badRow: Int, reason: String) {
        var badRow = 99
        var reason: UnsafePointer<CChar>?
        let status = withCStrings(hashes) {
            lazyimg_set_placeholders(host.loader, first, kind, $0, hashes.count, &badRow, &reason)
        }
        return (status, badRow, reason.map { String(cString: $0) } ?? "<NULL>")
    }

    /// lazyimg_request, keeping the image it returns (the caller releases it).
    private func request(_ host: CHost, _ row: Int) -> (status: lazyimg_status, ticket: UInt64, image: OpaquePointer?) {
        var image: OpaquePointer?
        var ticket: UInt64 = 0
        let status = lazyimg_request(host.loader, row, &image, &ticket)
        return (status, ticket, image)
    }

    private func pixels(_ image: OpaquePointer?) -> [UInt8] {
        guard let start = lazyimg_image_pixels(image) else { return [] }
        let width = Int(lazyimg_image_width(image)), stride = lazyimg_image_stride(image)
        return (0..<Int(lazyimg_image_height(image))).flatMap { y in
            Array(UnsafeBufferPointer(start: start + y * stride, count: width * 4))
        }
    }

    private func pixels(_ image: DecodedImage?) -> [UInt8] {
        guard let image else { return [] }
        return (0..<image.height).flatMap { Array(image.row($0)) }
    }

    func testAWaitingRowAnswersItsPlaceholderThenItsImageArrivesOnce() throws {
        server.serveGated("/photo.jpg", body: makeJPEG(width: 320, height: 240, pattern: .solid(red: 200, green: 40, blue: 10)))
        let host = try CHost(box(64, 64))
        XCTAssertEqual(host.setItems([server.url("/photo.jpg")]), LAZYIMG_OK)
        XCTAssertEqual(setPlaceholders(host, first: 0, LAZYIMG_PLACEHOLDER_BLURHASH, [Self.blurHash]).status, LAZYIMG_OK)

        let first = request(host, 0)
        defer { lazyimg_image_release(first.image) }
        XCTAssertEqual(first.status, LAZYIMG_PLACEHOLDER, "not OK: a placeholder is not the image")
        XCTAssertNotEqual(first.ticket, 0)
        XCTAssertEqual(lazyimg_image_is_placeholder(first.image), 1)
        XCTAssertEqual([lazyimg_image_width(first.image), lazyimg_image_height(first.image)], [64, 64],
                       "a BlurHash fills the box")
        XCTAssertEqual(lazyimg_image_pixel_format(first.image), LAZYIMG_PIXEL_RGBA8)
        let drawn = try BlurHash(Array(Self.blurHash.utf8)).render(width: 64, height: 64, format: .rgba8)
        XCTAssertEqual(pixels(first.image), pixels(drawn), "the renderer's pixels, which the fixtures check")

        // Not in the memory cache: a lookup misses, and asking again answers the drawn
        // placeholder again (the same object: drawn once) with a new ticket.
        var cached: OpaquePointer?
        XCTAssertEqual(lazyimg_lookup(host.loader, 0, &cached), LAZYIMG_MISS)
        let second = request(host, 0)
        defer { lazyimg_image_release(second.image) }
        XCTAssertEqual(second.status, LAZYIMG_PLACEHOLDER)
        XCTAssertEqual(second.image, first.image)
        XCTAssertNotEqual(second.ticket, first.ticket)

        server.release("/photo.jpg")
        host.dispatch(until: 2)
        XCTAssertEqual(host.events.map(\.ticket).sorted(), [first.ticket, second.ticket].sorted(), "one event per ticket")
        for event in host.events {
            XCTAssertEqual(event.type, LAZYIMG_EVENT_IMAGE)
            XCTAssertEqual([event.width, event.height], [64, 48], "the photo, fitted, not the placeholder")
        }
        let final = request(host, 0)
        defer { lazyimg_image_release(final.image) }
        XCTAssertEqual(final.status, LAZYIMG_OK)
        XCTAssertEqual(final.ticket, 0)
        XCTAssertEqual(lazyimg_image_is_placeholder(final.image), 0)
        let center = pixels(final.image)[(24 * 64 + 32) * 4 ..< (24 * 64 + 32) * 4 + 3].map(Double.init)
        XCTAssertEqual(center[0], 200, accuracy: 6)
        XCTAssertEqual(center[1], 40, accuracy: 6)
        XCTAssertEqual(server.hits("/photo.jpg"), 1)

        XCTAssertEqual(host.destroy(), LAZYIMG_OK)
        XCTAssertEqual(host.events.count, 2, "no event for the placeholders themselves")
    }

    func testThumbHashKeepsItsAspectInsideTheBoxAndCoversItWhenFilling() throws {
        server.serveGated("/a.jpg", body: makeJPEG(width: 64, height: 64))
        let hash = try ThumbHash(base64: Array(Self.thumbHash.utf8))
        for (fit, size) in [(LAZYIMG_FIT_INSIDE, (48, 34)), (LAZYIMG_FIT_FILL, (48, 48))] {
            let host = try CHost(box(48, 48) { $0.fit = fit; $0.pixel_format = LAZYIMG_PIXEL_BGRA8_PREMULTIPLIED })
            XCTAssertEqual(host.setItems([server.url("/a.jpg")]), LAZYIMG_OK)
            XCTAssertEqual(setPlaceholders(host, first: 0, LAZYIMG_PLACEHOLDER_THUMBHASH, [Self.thumbHash]).status, LAZYIMG_OK)
            let answer = request(host, 0)
            defer { lazyimg_image_release(answer.image) }
            XCTAssertEqual(answer.status, LAZYIMG_PLACEHOLDER)
            XCTAssertEqual([Int(lazyimg_image_width(answer.image)), Int(lazyimg_image_height(answer.image))],
                           [size.0, size.1], "\(fit)")
            XCTAssertEqual(lazyimg_image_pixel_format(answer.image), LAZYIMG_PIXEL_BGRA8_PREMULTIPLIED)
            if fit == LAZYIMG_FIT_INSIDE {
                XCTAssertEqual(pixels(answer.image), pixels(hash.render(width: 48, height: 34, format: .bgra8Premultiplied)))
            }
            XCTAssertEqual(host.destroy(), LAZYIMG_OK)
            XCTAssertEqual(host.events.map(\.status), [LAZYIMG_E_CANCELLED], "its one event")
        }
    }

    func testRowsHeldByAFlingAnswerThePlaceholderAndLoadAtRest() throws {
        for n in 0..<4 { server.serve("/\(n).jpg", body: makeJPEG(width: 48, height: 32)) }
        let host = try CHost(box(32, 32) { $0.prefetch_rows = 0 })
        XCTAssertEqual(host.setItems((0..<4).map { server.url("/\($0).jpg") }), LAZYIMG_OK)
        XCTAssertEqual(setPlaceholders(host, first: 0, LAZYIMG_PLACEHOLDER_BLURHASH, [Self.blurHash, nil, Self.blurHash, nil])
            .status, LAZYIMG_OK)
        // Moving before the rows come into view, so none starts at rest first.
        XCTAssertEqual(lazyimg_set_scroll_state(host.loader, LAZYIMG_SCROLL_DRAGGING, 40), LAZYIMG_OK)
        XCTAssertEqual(lazyimg_set_visible_range(host.loader, 0, 4), LAZYIMG_OK)
        let answers = (0..<4).map { request(host, $0) }
        defer { answers.forEach { lazyimg_image_release($0.image) } }
        XCTAssertEqual(answers.map(\.status), [LAZYIMG_PLACEHOLDER, LAZYIMG_DEFERRED, LAZYIMG_PLACEHOLDER, LAZYIMG_DEFERRED])
        XCTAssertEqual(answers.map { $0.image == nil }, [false, true, false, true])
        XCTAssertEqual(host.stats().deferred, 4, "held back all the same")
        XCTAssertEqual(host.stats().downloads_started, 0)
        XCTAssertEqual(lazyimg_set_scroll_state(host.loader, LAZYIMG_SCROLL_IDLE, 0), LAZYIMG_OK)
        host.dispatch(until: 4)
        XCTAssertEqual(Set(host.events.map(\.ticket)), Set(answers.map(\.ticket)))
        XCTAssertEqual(host.events.map(\.status), Array(repeating: LAZYIMG_OK, count: 4))
    }

    func testAFailedRowKeepsItsPlaceholderForLookup() throws {
        server.serve("/missing.jpg", body: [], status: 404)
        let host = try CHost(box(16, 16))
        XCTAssertEqual(host.setItems([server.url("/missing.jpg"), nil]), LAZYIMG_OK)
        XCTAssertEqual(setPlaceholders(host, first: 0, LAZYIMG_PLACEHOLDER_THUMBHASH, [Self.thumbHash, Self.thumbHash])
            .status, LAZYIMG_OK)
        let answer = request(host, 0)
        lazyimg_image_release(answer.image)
        XCTAssertEqual(answer.status, LAZYIMG_PLACEHOLDER)
        host.dispatch(until: 1)
        XCTAssertEqual(host.events.map(\.status), [LAZYIMG_E_HTTP])
        // The error answers at once now, with no ticket and no image...
        let again = request(host, 0)
        XCTAssertEqual(again.status, LAZYIMG_E_HTTP)
        XCTAssertNil(again.image)
        XCTAssertEqual(request(host, 1).status, LAZYIMG_E_NO_IMAGE)
        // ... and the placeholder is still there to show.
        for row in 0..<2 {
            var image: OpaquePointer?
            XCTAssertEqual(lazyimg_lookup_placeholder(host.loader, row, &image), LAZYIMG_OK)
            XCTAssertEqual(lazyimg_image_is_placeholder(image), 1)
            lazyimg_image_release(image)
        }
    }

    func testABadHashIsNamedByRowAndReasonAndTheOthersAreSet() throws {
        let host = try CHost(box(8, 8))
        XCTAssertEqual(host.setItems(Array(repeating: server.url("/x.jpg"), count: 8)), LAZYIMG_OK)
        XCTAssertEqual(setPlaceholders(host, first: 0, LAZYIMG_PLACEHOLDER_BLURHASH, Array(repeating: Self.blurHash, count: 8))
            .status, LAZYIMG_OK)
        let bad = setPlaceholders(host, first: 2, LAZYIMG_PLACEHOLDER_BLURHASH,
                                  [Self.blurHash, "LEHV6nWB2yk8pyo0adR*.7kCMdn", nil, Self.blurHash,
                                   String(repeating: "0", count: 1 << 20)])
        XCTAssertEqual(bad.status, LAZYIMG_E_BAD_PLACEHOLDER)
        XCTAssertEqual(bad.badRow, 3, "the first row refused")
        XCTAssertEqual(bad.reason, "BlurHash length does not match the component count in its first character")
        XCTAssertEqual(String(cString: lazyimg_strerror(LAZYIMG_E_BAD_PLACEHOLDER)), "placeholder hash does not parse")
        var has: [Bool] = []
        for row in 0..<8 {
            var image: OpaquePointer?
            has.append(lazyimg_lookup_placeholder(host.loader, row, &image) == LAZYIMG_OK)
            lazyimg_image_release(image)
        }
        XCTAssertEqual(has, [true, true, true, false, false, true, false, true],
                       "refused and NULL rows lose theirs; rows outside the call keep theirs")

        let thumb = setPlaceholders(host, first: 0, LAZYIMG_PLACEHOLDER_THUMBHASH, ["not base64!"])
        XCTAssertEqual([thumb.badRow], [0])
        XCTAssertEqual(thumb.reason, "ThumbHash is not base64 text")
        // A BlurHash given as a ThumbHash does not parse either.
        XCTAssertEqual(setPlaceholders(host, first: 0, LAZYIMG_PLACEHOLDER_THUMBHASH, [Self.blurHash]).status,
                       LAZYIMG_E_BAD_PLACEHOLDER)
        let good = setPlaceholders(host, first: 0, LAZYIMG_PLACEHOLDER_THUMBHASH, [Self.thumbHash])
        XCTAssertEqual([good.badRow], [0])
        XCTAssertEqual(good.reason, "", "set on every return")
    }

    func testMisuseIsRefusedAndChangesNothing() throws {
        let host = try CHost(box(8, 8))
        XCTAssertEqual(host.setItems([server.url("/a.jpg"), server.url("/b.jpg")]), LAZYIMG_OK)
        XCTAssertEqual(lazyimg_set_placeholders(nil, 0, LAZYIMG_PLACEHOLDER_BLURHASH, nil, 0, nil, nil),
                       LAZYIMG_E_INVALID_ARGUMENT)
        XCTAssertEqual(lazyimg_set_placeholders(host.loader, 0, LAZYIMG_PLACEHOLDER_BLURHASH, nil, 1, nil, nil),
                       LAZYIMG_E_INVALID_ARGUMENT, "NULL hashes for one row")
        XCTAssertEqual(lazyimg_set_placeholders(host.loader, 0, LAZYIMG_PLACEHOLDER_BLURHASH, nil, 0, nil, nil), LAZYIMG_OK)
        XCTAssertEqual(lazyimg_set_placeholders(host.loader, 2, LAZYIMG_PLACEHOLDER_BLURHASH, nil, 0, nil, nil), LAZYIMG_OK,
                       "no rows at the end")
        XCTAssertEqual(setPlaceholders(host, first: 0, lazyimg_placeholder_kind(rawValue: 99), [Self.blurHash]).status,
                       LAZYIMG_E_INVALID_ARGUMENT)
        XCTAssertEqual(setPlaceholders(host, first: 1, LAZYIMG_PLACEHOLDER_BLURHASH, [Self.blurHash, Self.blurHash]).status,
                       LAZYIMG_E_OUT_OF_RANGE)
        XCTAssertEqual(setPlaceholders(host, first: Int.max, LAZYIMG_PLACEHOLDER_BLURHASH, [Self.blurHash]).status,
                       LAZYIMG_E_OUT_OF_RANGE)
        let wrapping = withCStrings([Self.blurHash]) {
            lazyimg_set_placeholders(host.loader, -1 /* SIZE_MAX */, LAZYIMG_PLACEHOLDER_BLURHASH, $0, 1, nil, nil)
        }
        XCTAssertEqual(wrapping, LAZYIMG_E_OUT_OF_RANGE)
        var image: OpaquePointer?
        XCTAssertEqual(lazyimg_lookup_placeholder(host.loader, 1, &image), LAZYIMG_MISS, "nothing was set")
        XCTAssertNil(image)
        XCTAssertEqual(lazyimg_lookup_placeholder(host.loader, 2, &image), LAZYIMG_E_OUT_OF_RANGE)
        XCTAssertEqual(lazyimg_lookup_placeholder(host.loader, 0, nil), LAZYIMG_E_INVALID_ARGUMENT)
        XCTAssertEqual(lazyimg_lookup_placeholder(nil, 0, &image), LAZYIMG_E_INVALID_ARGUMENT)
        XCTAssertEqual(lazyimg_image_is_placeholder(nil), 0)
        XCTAssertEqual(host.request(5).status, LAZYIMG_E_OUT_OF_RANGE)
        XCTAssertEqual(host.stats().requests, 0)
    }

    func testANewListHasNoPlaceholdersAndAPageAddsRowsWithout() throws {
        let host = try CHost(box(8, 8))
        XCTAssertEqual(host.setItems([server.url("/a.jpg")]), LAZYIMG_OK)
        XCTAssertEqual(setPlaceholders(host, first: 0, LAZYIMG_PLACEHOLDER_BLURHASH, [Self.blurHash]).status, LAZYIMG_OK)
        func placeholders() -> [Bool] {
            (0..<lazyimg_item_count(host.loader)).map { row in
                var image: OpaquePointer?
                defer { lazyimg_image_release(image) }
                return lazyimg_lookup_placeholder(host.loader, row, &image) == LAZYIMG_OK
            }
        }
        XCTAssertEqual(withCStrings([server.url("/b.jpg")]) { lazyimg_append_items(host.loader, $0, 1) }, LAZYIMG_OK)
        XCTAssertEqual(placeholders(), [true, false])
        XCTAssertEqual(setPlaceholders(host, first: 1, LAZYIMG_PLACEHOLDER_BLURHASH, [Self.blurHash]).status, LAZYIMG_OK)
        XCTAssertEqual(placeholders(), [true, true])
        XCTAssertEqual(host.setItems([server.url("/a.jpg"), server.url("/b.jpg"), server.url("/c.jpg")]), LAZYIMG_OK)
        XCTAssertEqual(placeholders(), [false, false, false])
    }

    /// The loader keeps the last 64 placeholders drawn: the 65th drawn pushes out the
    /// least recently used, which is drawn anew when asked for again.
    func testDrawnPlaceholdersAreKeptUpToTheirBound() throws {
        let host = try CHost(box(8, 8))
        let rows = 66
        XCTAssertEqual(host.setItems((0..<rows).map { server.url("/\($0).jpg") }), LAZYIMG_OK)
        XCTAssertEqual(setPlaceholders(host, first: 0, LAZYIMG_PLACEHOLDER_BLURHASH, Array(repeating: Self.blurHash, count: rows))
            .status, LAZYIMG_OK)
        func lookup(_ row: Int) -> OpaquePointer? {
            var image: OpaquePointer?
            XCTAssertEqual(lazyimg_lookup_placeholder(host.loader, row, &image), LAZYIMG_OK)
            return image
        }
        let drawn = (0..<rows).map { lookup($0) }
        defer { drawn.forEach { lazyimg_image_release($0) } }
        let again = [lookup(rows - 1), lookup(2), lookup(0), lookup(1)]
        defer { again.forEach { lazyimg_image_release($0) } }
        XCTAssertEqual(again[0], drawn[rows - 1], "kept")
        XCTAssertEqual(again[1], drawn[2], "kept: 64 were drawn after it")
        XCTAssertNotEqual(again[2], drawn[0], "pushed out, drawn anew")
        XCTAssertNotEqual(again[3], drawn[1])
        XCTAssertEqual(pixels(again[2]), pixels(drawn[0]))
        lazyimg_trim_memory(host.loader, LAZYIMG_TRIM_COMPLETE)
        let trimmed = lookup(rows - 1)
        defer { lazyimg_image_release(trimmed) }
        XCTAssertNotEqual(trimmed, drawn[rows - 1], "a complete trim drops them")
    }

    /// Requests drawing placeholders on two threads while a third changes the list and
    /// its placeholders: every answer is a status the contract names, and (under
    /// ThreadSanitizer) no access races.
    func testRequestsAndListChangesOnOtherThreadsAgree() throws {
        let host = try CHost(box(16, 16))
        let urls = (0..<32).map { server.url("/\($0).jpg") }
        XCTAssertEqual(host.setItems(urls), LAZYIMG_OK)
        XCTAssertEqual(setPlaceholders(host, first: 0, LAZYIMG_PLACEHOLDER_BLURHASH, Array(repeating: Self.blurHash, count: 32))
            .status, LAZYIMG_OK)
        let loader = UInt(bitPattern: host.loader)
        let answers = Locked<Set<Int32>>([])
        DispatchQueue.concurrentPerform(iterations: 3) { thread in
            let loader = OpaquePointer(bitPattern: loader)
            guard thread == 2 else {
                for round in 0..<300 {
                    var image: OpaquePointer?
                    var ticket: UInt64 = 0
                    let status = lazyimg_request(loader, round % 40, &image, &ticket)
                    if status == LAZYIMG_PLACEHOLDER { XCTAssertEqual(lazyimg_image_is_placeholder(image), 1) }
                    lazyimg_image_release(image)
                    image = nil
                    _ = lazyimg_lookup_placeholder(loader, round % 40, &image)
                    lazyimg_image_release(image)
                    answers.withLock { _ = $0.insert(status.rawValue) }
                }
                return
            }
            for round in 0..<100 {
                let hashes = Array(repeating: round % 3 == 0 ? nil : Self.blurHash, count: 32)
                XCTAssertEqual(withCStrings(hashes) {
                    lazyimg_set_placeholders(loader, 0, LAZYIMG_PLACEHOLDER_BLURHASH, $0, 32, nil, nil)
                }, LAZYIMG_OK)
                if round % 10 == 0 { XCTAssertEqual(withCStrings(urls) { lazyimg_set_items(loader, $0, 32) }, LAZYIMG_OK) }
                if round % 10 == 5 { XCTAssertEqual(withCStrings([urls[0]]) { lazyimg_append_items(loader, $0, 1) }, LAZYIMG_OK) }
            }
        }
        let named: Set<Int32> = [LAZYIMG_PLACEHOLDER, LAZYIMG_PENDING, LAZYIMG_OK, LAZYIMG_E_OUT_OF_RANGE,
                                 LAZYIMG_E_NETWORK, LAZYIMG_E_HTTP].reduce(into: []) { $0.insert($1.rawValue) }
        XCTAssertTrue(answers.withLock { $0 }.isSubset(of: named), "\(answers.withLock { $0 })")
        XCTAssertTrue(answers.withLock { $0 }.contains(LAZYIMG_PLACEHOLDER.rawValue))
    }
}
#endif
