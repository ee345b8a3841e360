#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_2 // ThreadSanitizer group 2 (see the Makefile's tsan)
import XCTest
@testable import LazyImgCore

/// A remembered slot answers only for the entry it was taken from: once that entry
/// leaves, the slot may hold another key's image, and the reference must miss.
final class MemoryCacheSlotRefTests: XCTestCase {
    private func image(width: Int) -> DecodedImage {
        DecodedImage(width: width, height: 1, sourceWidth: 1, sourceHeight: 1)!
    }

    private func key(_ name: String) -> CacheKey {
        CacheKey(url: "http://x.test/\(name)", target: .original)
    }

    func testAReferenceFindsItsImageUntilTheEntryIsEvicted() throws {
        var cache = MemoryCache(capacity: 4 * 10)
        cache.insert(image(width: 10), for: key("a"))
        let ref = try XCTUnwrap(cache.slotRef(for: key("a")))
        XCTAssertEqual(cache.image(at: ref)?.width, 10)
        cache.insert(image(width: 9), for: key("b"))  // evicts a; b takes its freed slot
        XCTAssertEqual(cache.slotRef(for: key("b"))?.slot, ref.slot, "the slot was reused")
        XCTAssertNil(cache.image(at: ref), "another key's image in the same slot is a miss")
    }

    func testAnInsertReturnsTheReferenceALookupWouldFind() throws {
        var cache = MemoryCache(capacity: 4 * 10)
        let inserted = try XCTUnwrap(cache.insert(image(width: 10), for: key("a")))
        XCTAssertEqual(inserted, cache.slotRef(for: key("a")))
        XCTAssertEqual(cache.image(at: inserted)?.width, 10)
        XCTAssertNil(cache.insert(image(width: 11), for: key("b")), "too large to keep: nowhere")
    }

    func testAReferenceToAnEvictedEntryWhoseSlotIsFreeMisses() throws {
        var cache = MemoryCache(capacity: 1000)
        cache.insert(image(width: 10), for: key("a"))
        let ref = try XCTUnwrap(cache.slotRef(for: key("a")))
        cache.remove(key("a"))
        XCTAssertNil(cache.image(at: ref), "the slot is free, not reused: still a miss")
        cache.insert(image(width: 10), for: key("b"))
        let evicted = try XCTUnwrap(cache.slotRef(for: key("b")))
        cache.evict(downTo: 0)
        XCTAssertNil(cache.image(at: evicted), "after an eviction too")
    }

    func testAReferenceToAnEntryStoredAgainIsStale() throws {
        var cache = MemoryCache(capacity: 1000)
        cache.insert(image(width: 10), for: key("a"))
        let old = try XCTUnwrap(cache.slotRef(for: key("a")))
        cache.insert(image(width: 11), for: key("a"))
        XCTAssertNil(cache.image(at: old))
        XCTAssertEqual(cache.slotRef(for: key("a")).flatMap { cache.image(at: $0) }?.width, 11)
    }

    func testAReferenceFromBeforeRemoveAllMatchesNothingStoredAfter() throws {
        var cache = MemoryCache(capacity: 1000)
        cache.insert(image(width: 10), for: key("a"))
        let old = try XCTUnwrap(cache.slotRef(for: key("a")))
        cache.removeAll()
        XCTAssertNil(cache.image(at: old))
        cache.insert(image(width: 12), for: key("b"))
        XCTAssertEqual(cache.slotRef(for: key("b"))?.slot, old.slot, "the same slot again")
        XCTAssertNil(cache.image(at: old), "generations go on across removeAll")
        XCTAssertNil(cache.image(at: .none))
        XCTAssertNil(cache.image(at: CacheSlotRef(slot: 99, generation: old.generation)), "out of range")
    }

    func testAHitGivesItsEntryASecondChance() {
        var cache = MemoryCache(capacity: 4 * 30)
        cache.insert(image(width: 10), for: key("a"))
        cache.insert(image(width: 10), for: key("b"))
        cache.insert(image(width: 10), for: key("c"))
        XCTAssertNotNil(cache.image(for: key("a")))
        cache.insert(image(width: 10), for: key("d"))
        XCTAssertNil(cache.peek(key("b")), "the oldest entry not used since it was stored")
        XCTAssertNotNil(cache.peek(key("a")))
        cache.insert(image(width: 10), for: key("e"))
        cache.insert(image(width: 10), for: key("f"))
        XCTAssertNil(cache.peek(key("c")))
        XCTAssertNil(cache.peek(key("a")), "its chance is used up: it went next")
        XCTAssertEqual(cache.count, 3)
        XCTAssertEqual(cache.totalCost, 4 * 30)
    }
}
#endif
