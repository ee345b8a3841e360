#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_2 // ThreadSanitizer group 2 (see the Makefile's tsan)
import CLazyImgHeader
import Glibc
import LazyImgCore
import TestSupport
import XCTest

/// `make bench-screenful`: how long a first screen of 10 rows takes to land from a
/// loopback server that holds every response 40 ms, under the old and new connection
/// defaults, measured in the same run. A benchmark that prints a table, never a timed
/// assertion; skipped unless LAZYIMG_BENCH is set.
final class ScreenfulBenchmark: XCTestCase {
    private static let rows = 10
    private static let delayMilliseconds = 40
    private static let runs = 9

    func testPrintTimeUntilAScreenfulLands() throws {
        try XCTSkipUnless(getenv("LAZYIMG_BENCH") != nil, "a benchmark: run it with make bench-screenful")
        let server = try HTTPTestServer()
        defer { server.stop() }
        let jpeg = makeJPEG(width: 256, height: 256)
        let urls: [String?] = (0..<Self.rows).map { row in
            server.serveSlow("/s/\(row).jpg", body: jpeg, delayMilliseconds: Self.delayMilliseconds)
            return server.url("/s/\(row).jpg")
        }
        let setups: [(name: String, total: UInt32, perHost: UInt32)] = [
            ("0.2 default: 6 downloads, 6 per host", 6, 6),
            ("browser-like: 16 downloads, 6 per host", 16, 6),
            ("0.3 default: 16 downloads, 10 per host", 0, 0),
        ]
        var medians: [Double] = []
        print("screenful benchmark: \(Self.rows) rows, \(Self.delayMilliseconds) ms server delay, "
              + "HTTP/1.1 loopback, new loader per run, \(Self.runs) runs")
        print(pad("setup", 42) + pad("median ms", 11) + pad("min ms", 9) + "vs 0.2")
        for setup in setups {
            var times: [Double] = []
            for _ in 0..<Self.runs {
                let host = try CHost {
                    $0.max_concurrent_downloads = setup.total
                    $0.max_host_connections = setup.perHost
                    $0.target_width = 64
                    $0.target_height = 64
                }
                XCTAssertEqual(host.setItems(urls), LAZYIMG_OK)
                XCTAssertEqual(lazyimg_set_visible_range(host.loader, 0, Self.rows), LAZYIMG_OK)
                let start = MonotonicClock.nanoseconds
                for row in 0..<Self.rows { _ = host.request(row) }
                host.dispatch(until: Self.rows)
                times.append(Double(MonotonicClock.nanoseconds - start) / 1e6)
                XCTAssertEqual(host.events.filter { $0.type == LAZYIMG_EVENT_IMAGE }.count, Self.rows)
            }
            times.sort()
            let median = times[times.count / 2]
            medians.append(median)
            print(pad(setup.name, 42) + pad(format(median), 11) + pad(format(times[0]), 9)
                  + format(median / medians[0]))
        }
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    private func format(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}

extension MonotonicClock {
    static var nanoseconds: Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
}
#endif
