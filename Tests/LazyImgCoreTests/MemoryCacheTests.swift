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

final class ViewStateTests: XCTestCase {
    func testPrefetchWindowLiesInTheDirectionOfTravel() {
        var view = ViewState(prefetchRows: nil)
        XCTAssertTrue(view.wants(1_000_000), "no visible range yet: everything is wanted")
        view.setVisible(10..<20)
        XCTAssertEqual(view.prefetchWindow, 20..<30, "one screen, forward by default")
        view.setVisible(5..<15)
        XCTAssertEqual(view.prefetchWindow, 0..<5, "moved up: window above, clamped at 0")
        view.setScroll(.dragging, velocity: 12)
        XCTAssertEqual(view.prefetchWindow, 15..<25, "velocity sets direction")
        view.setScroll(.idle, velocity: 0)
        XCTAssertEqual(view.prefetchWindow, 15..<25, "zero velocity keeps it")
        XCTAssertTrue(view.wants(24))
        XCTAssertFalse(view.wants(4))
        XCTAssertFalse(view.wants(25))
    }

    func testRankPutsVisibleRowsFirstThenTheNearestPrefetchRows() {
        var view = ViewState(prefetchRows: 3)
        view.setVisible(10..<12)
        let order = [30, 13, 11, 12, 0, 10, 14].sorted { view.rank(of: $0) < view.rank(of: $1) }
        XCTAssertEqual(order, [10, 11, 12, 13, 14, 0, 30])
    }

    func testHugeRangesDoNotOverflow() {
        var view = ViewState(prefetchRows: Int.max)
        view.setVisible(Int.max - 1..<Int.max)
        XCTAssertEqual(view.prefetchWindow.upperBound, Int.max)
        XCTAssertTrue(view.rank(of: 0) > view.rank(of: Int.max - 1))
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
