#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_3 // ThreadSanitizer group 3 (see the Makefile's tsan)
import XCTest
@testable import LazyImgCore

/// The memory cache's filter: never "no" for a key it holds, mostly "no" for one
/// it does not, through the cache's evictions, replacements and removals.
final class CachePresenceTests: XCTestCase {
    private func key(_ n: Int) -> CacheKey {
        CacheKey(url: "http://x.test/\(n).jpg", target: TargetSize(width: 64, height: 64))
    }

    func testHeldKeysAreAlwaysMaybeAndMostOthersNo() {
        var presence = CachePresence()
        for n in 0..<1_000 { presence.insert(key(n)) }
        for n in 0..<1_000 { XCTAssertTrue(presence.mayContain(key(n)), "key \(n) is held") }
        let wronglyMaybe = (1_000..<11_000).filter { presence.mayContain(key($0)) }.count
        // About 1.3% expected at 1,000 keys (CachePresence's sizing).
        XCTAssertLessThan(wronglyMaybe, 500, "of 10,000 keys not held")

        for n in 0..<500 { presence.remove(key(n)) }
        for n in 500..<1_000 { XCTAssertTrue(presence.mayContain(key(n)), "key \(n) is still held") }
        XCTAssertLessThan((0..<500).filter { presence.mayContain(key($0)) }.count, 100, "of 500 removed")
    }

    func testACounterThatSaturatesStaysMaybe() {
        var presence = CachePresence()
        let k = key(7)
        for _ in 0..<10 { presence.insert(k) }
        for _ in 0..<10 { presence.remove(k) }
        XCTAssertFalse(presence.mayContain(k), "counted down to empty")
        for _ in 0..<300 { presence.insert(k) }
        for _ in 0..<299 { presence.remove(k) }
        XCTAssertTrue(presence.mayContain(k), "one still in: never a wrong no")
        presence.remove(k)
        XCTAssertTrue(presence.mayContain(k), "a saturated counter stays (a wrong maybe, never a wrong no)")
    }

    func testTheCacheFindsWhatItHoldsThroughEvictionAndReplacement() throws {
        var cache = MemoryCache(capacity: 64 * 4 * 100)
        let image = DecodedImage(width: 64, height: 1, sourceWidth: 1, sourceHeight: 1)!
        for n in 0..<400 { cache.insert(image, for: key(n)) }
        // Only the newest 100 fit: the rest were evicted and must miss.
        for n in 0..<300 { XCTAssertNil(cache.slotRef(for: key(n)), "key \(n) was evicted") }
        for n in 300..<400 { XCTAssertNotNil(cache.slotRef(for: key(n)), "key \(n) is held") }
        cache.insert(image, for: key(350))
        XCTAssertNotNil(cache.slotRef(for: key(350)), "replaced, still held")
        cache.remove(key(351))
        XCTAssertNil(cache.slotRef(for: key(351)))
        cache.removeAll()
        XCTAssertNil(cache.slotRef(for: key(399)))
        cache.insert(image, for: key(399))
        XCTAssertNotNil(cache.slotRef(for: key(399)))
    }
}
#endif
