#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_4 // ThreadSanitizer group 4 (see the Makefile's tsan)
@testable import LazyImgCore
import Glibc
import XCTest

/// Which names the network thread looks up itself (HostLookup), and how long their
/// answers are kept (ResolvedNames).
final class HostLookupTests: XCTestCase {
    private func lookup(_ url: String, proxy: NetworkPolicy.Proxy = .none) -> HostLookup? {
        HostLookup(ImageURL(url), proxy: proxy)
    }

    func testNamesAreLookedUpHereInLowerCaseWithTheirPort() {
        XCTAssertEqual(lookup("http://Images.Example.test/a.jpg"), .name("images.example.test", port: 80))
        XCTAssertEqual(lookup("https://user:pw@cdn.example.test:8443/a.jpg"), .name("cdn.example.test", port: 8443))
        XCTAssertEqual(lookup("http://a.test/")?.resolveEntry(["192.0.2.1", "[2001:db8::1]"]),
                       "+a.test:80:192.0.2.1,[2001:db8::1]")
    }

    /// libcurl converts with libidn2 from the locale's character set, as it does when
    /// it connects: in the C locale a name past ASCII does not convert (BAD_URL either way).
    func testInternationalNamesAreLookedUpInPunycodeAsLibcurlConnects() throws {
        let saved = String(cString: setlocale(LC_CTYPE, nil))
        defer { setlocale(LC_CTYPE, saved) }
        try XCTSkipIf(setlocale(LC_CTYPE, "C.UTF-8") == nil, "no C.UTF-8 locale")
        XCTAssertEqual(lookup("http://bücher.example/a.jpg"), .name("xn--bcher-kva.example", port: 80))
        setlocale(LC_CTYPE, "C")
        XCTAssertNil(lookup("http://bücher.example/a.jpg"))
        XCTAssertEqual(lookup("http://xn--bcher-kva.example/a.jpg"), .name("xn--bcher-kva.example", port: 80))
    }

    func testAddressesAndLocalhostAreLeftToLibcurl() {
        for url in ["http://127.0.0.1:8080/a", "http://[::1]/a", "http://localhost/a", "http://img.localhost/a",
                    "http://127.1/a"] {
            XCTAssertEqual(lookup(url), .byLibcurl, url)
        }
    }

    func testAProxyLooksNamesUpItself() {
        XCTAssertEqual(lookup("http://a.test/", proxy: .url("http://proxy.test:3128")), .byLibcurl)
        // Whatever proxy the machine running the tests has set, only this one now.
        let names = ["http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"]
        let saved = names.map { name in getenv(name).map { String(cString: $0) } }
        names.forEach { unsetenv($0) }
        defer {
            for (name, value) in zip(names, saved) {
                if let value { setenv(name, value, 1) } else { unsetenv(name) }
            }
        }
        setenv("https_proxy", "http://proxy.test:3128", 1)
        XCTAssertEqual(lookup("https://a.test/", proxy: .environment), .byLibcurl)
        XCTAssertEqual(lookup("http://a.test/", proxy: .environment), .name("a.test", port: 80),
                       "https_proxy is not http's")
        XCTAssertEqual(lookup("https://a.test/", proxy: .none), .name("a.test", port: 443))
    }

    func testHostsNoDNSNameHasAreRefused() {
        XCTAssertNil(lookup("http://a!b.test/"))
        XCTAssertNil(lookup("not a url"))
    }

    func testAnswersExpireAfterAMinuteAndOnlyTheNewestAreKept() {
        var names = ResolvedNames()
        names.insert(["192.0.2.1"], for: "a.test", now: 0)
        XCTAssertEqual(names.addresses(of: "a.test", now: ResolvedNames.lifetimeMilliseconds - 1), ["192.0.2.1"])
        XCTAssertNil(names.addresses(of: "a.test", now: ResolvedNames.lifetimeMilliseconds))
        for n in 0...ResolvedNames.capacity { names.insert(["192.0.2.2"], for: "host\(n).test", now: 10) }
        XCTAssertNil(names.addresses(of: "host0.test", now: 10), "the oldest answer made room")
        XCTAssertEqual(names.addresses(of: "host\(ResolvedNames.capacity).test", now: 10), ["192.0.2.2"])
        XCTAssertEqual(names.addresses(of: "host1.test", now: 10), ["192.0.2.2"])
    }
}
#endif
