#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_3 // ThreadSanitizer group 3 (see the Makefile's tsan)
import XCTest
@testable import LazyImgCore

final class MemoryCacheTests: XCTestCase {
    private func image(bytes: Int) -> DecodedImage {
        DecodedImage(width: bytes / 4, height: 1, sourceWidth: 1, sourceHeight: 1)!
    }

    private func key(_ name: String) -> CacheKey {
        CacheKey(url: "http://x.test/\(name)", target: .original)
    }

    func testEvictsLeastRecentlyUsedToStayWithinBytes() {
        var cache = MemoryCache(capacity: 300)
        cache.insert(image(bytes: 100), for: key("a"))
        cache.insert(image(bytes: 100), for: key("b"))
        cache.insert(image(bytes: 100), for: key("c"))
        XCTAssertNotNil(cache.image(for: key("a")), "a is now the most recent")
        cache.insert(image(bytes: 100), for: key("d"))
        XCTAssertNil(cache.peek(key("b")), "b was least recently used")
        XCTAssertNotNil(cache.peek(key("a")))
        XCTAssertEqual(cache.totalCost, 300)
        XCTAssertEqual(cache.count, 3)
        cache.insert(image(bytes: 200), for: key("e"))
        XCTAssertEqual(cache.totalCost, 300)
        XCTAssertNil(cache.peek(key("c")), "oldest went first")
        XCTAssertNil(cache.peek(key("a")), "then the next oldest")
        XCTAssertNotNil(cache.peek(key("d")))
    }

    func testAnImageLargerThanTheCacheIsNotStored() {
        var cache = MemoryCache(capacity: 100)
        cache.insert(image(bytes: 40), for: key("small"))
        cache.insert(image(bytes: 200), for: key("huge"))
        XCTAssertNil(cache.peek(key("huge")))
        XCTAssertNotNil(cache.peek(key("small")), "nothing evicted for it")
        var off = MemoryCache(capacity: 0)
        off.insert(image(bytes: 4), for: key("x"))
        XCTAssertEqual(off.count, 0)
    }

    func testReplacingAKeyCountsItOnce() {
        var cache = MemoryCache(capacity: 1000)
        cache.insert(image(bytes: 100), for: key("a"))
        cache.insert(image(bytes: 200), for: key("a"))
        XCTAssertEqual(cache.totalCost, 200)
        XCTAssertEqual(cache.count, 1)
    }

    func testDifferentBoxesAreDifferentEntries() {
        var cache = MemoryCache(capacity: 1000)
        let url = "http://x.test/a"
        cache.insert(image(bytes: 100), for: CacheKey(url: url, target: TargetSize(width: 64, height: 64)))
        XCTAssertNil(cache.peek(CacheKey(url: url, target: TargetSize(width: 128, height: 128))))
        XCTAssertNotNil(cache.peek(CacheKey(url: url, target: TargetSize(width: 64, height: 64))))
    }

    func testEvictionReleasesOnlyTheCachesReference() {
        var cache = MemoryCache(capacity: 100)
        let held = image(bytes: 100)
        held.row(0)[0] = 42
        cache.insert(held, for: key("a"))
        cache.removeAll()
        XCTAssertEqual(held.row(0)[0], 42, "the host's reference keeps the pixels")
        weak var dropped: DecodedImage?
        do {
            let temporary = image(bytes: 100)
            dropped = temporary
            cache.insert(temporary, for: key("b"))
        }
        XCTAssertNotNil(dropped)
        cache.evict(downTo: 0)
        XCTAssertNil(dropped, "freed once the cache let go")
    }

    func testManyOperationsKeepTheBookkeepingExact() {
        var cache = MemoryCache(capacity: 1000)
        var rng = SplitMix(seed: 7)
        for _ in 0..<5000 {
            let name = String(rng.next() % 50)
            switch rng.next() % 3 {
            case 0: cache.insert(image(bytes: 4 * Int(1 + rng.next() % 60)), for: key(name))
            case 1: _ = cache.image(for: key(name))
            default: cache.remove(key(name))
            }
            XCTAssertLessThanOrEqual(cache.totalCost, 1000)
        }
        var sum = 0
        for n in 0..<50 { sum += cache.peek(key(String(n)))?.byteCount ?? 0 }
        XCTAssertEqual(sum, cache.totalCost)
    }
}

final class URLCheckTests: XCTestCase {
    func testAcceptsHTTPHTTPSAndFileURLs() {
        for url in ["http://a.test/x.jpg", "HTTPS://a.test:8080/x?y=1", "file:///tmp/x.png", "http://127.0.0.1:1/x"] {
            XCTAssertTrue(URLCheck.isLoadable(ImageURL(url), allowingFiles: true), url)
        }
        XCTAssertFalse(URLCheck.isLoadable(ImageURL("file:///etc/passwd"), allowingFiles: false), "file:// is opt-in")
    }

    func testRejectsWhatIsPlainlyNotALoadableURL() {
        let long = "http://a.test/" + String(repeating: "a", count: 9000)
        for url in ["", "a.jpg", "ftp://a.test/x", "http://", "http:///x", "https://a b.test/", "http://a.test/\n",
                    "file://", "javascript:alert(1)", "data:image/png;base64,AAAA", long] {
            XCTAssertFalse(URLCheck.isLoadable(ImageURL(url), allowingFiles: true), url)
        }
    }
}
#endif
