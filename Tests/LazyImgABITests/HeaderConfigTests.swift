#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_2 // ThreadSanitizer group 2 (see the Makefile's tsan)
import CLazyImgHeader
import Glibc
import XCTest

/// Header lines and the user agent from lazyimg_config: what is refused at create.
final class HeaderConfigTests: XCTestCase {
    private func create(headers: [String?] = [nil], userAgent: String? = nil) -> lazyimg_status {
        withCStrings(headers) { lines in
            let agent = userAgent.map { strdup($0) }
            defer { free(agent ?? nil) }
            var config = lazyimg_config()
            lazyimg_config_init(&config)
            config.http_headers = lines
            config.user_agent = agent.map { UnsafePointer($0) } ?? nil
            var out: OpaquePointer?
            let status = lazyimg_loader_create(&config, &out)
            if status == LAZYIMG_OK { XCTAssertEqual(lazyimg_loader_destroy(out), LAZYIMG_OK) }
            return status
        }
    }

    func testControlBytesOtherThanTabAreRefused() {
        for line in ["X-A: a\u{1}b", "X-A: a\u{1B}[2J", "X-A: a\u{7F}", "X-A: \u{8}"] {
            XCTAssertEqual(create(headers: [line, nil]), LAZYIMG_E_INVALID_ARGUMENT, line.debugDescription)
        }
        XCTAssertEqual(create(userAgent: "agent\u{1B}"), LAZYIMG_E_INVALID_ARGUMENT)
        XCTAssertEqual(create(headers: ["X-A: a\tb", nil]), LAZYIMG_OK, "HT is allowed in a value")
    }

    func testNamesMustBeTokensAndHostIsRefused() {
        for line in ["X A: 1", "X\tA: 1", "(X): 1", ": 1", "Host: evil.test", "hOsT:evil.test", "Host:"] {
            XCTAssertEqual(create(headers: [line, nil]), LAZYIMG_E_INVALID_ARGUMENT, line.debugDescription)
        }
        XCTAssertEqual(create(headers: ["X-Api_Key.v2: 1", "Hostname: fine", nil]), LAZYIMG_OK)
    }
}
#endif
