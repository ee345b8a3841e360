#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_1 // ThreadSanitizer group 1 (see the Makefile's tsan)
import Dispatch
import TestSupport
import XCTest
@testable import LazyImgCore

/// Many host threads on one loader at once, with real libcurl against the loopback
/// server and real decoders: every ticket still gets exactly one event (issue 7,
/// "stress"). Bounded by a count of calls, not by time.
final class LoaderStressTests: XCTestCase {
    /// Tickets handed out and events delivered, from any thread.
    final class Ledger: Sendable {
        private let issued = Locked<[UInt64: Int]>([:])
        private let events = Locked<[UInt64: [Int]]>([:])

        func issue(_ ticket: UInt64, row: Int) { issued.withLock { $0[ticket] = row } }
        func record(_ event: LoaderEvent) { events.withLock { $0[event.ticket, default: []].append(event.row) } }
        var issuedTickets: [UInt64: Int] { issued.withLock { $0 } }
        var deliveredEvents: [UInt64: [Int]] { events.withLock { $0 } }
    }

    func testManyThreadsOnOneLoaderGetExactlyOneEventPerTicket() throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        let bodies: [[UInt8]] = [makeJPEG(width: 96, height: 64), makePNG(width: 50, height: 70), Array("not an image".utf8)]
        let urlCount = 24
        for index in 0..<urlCount {
            server.serve("/\(index)", body: bodies[index % bodies.count], status: index % 7 == 6 ? 404 : 200)
        }
        let rows: [String?] = (0..<120).map { $0 % 11 == 10 ? nil : server.url("/\($0 % urlCount)") }

        var config = LoaderConfiguration()
        config.delivery = .thread
        config.memoryCacheBytes = 64 << 10  // a few images: evictions all the time
        config.maxConcurrentDownloads = 4
        config.prefetchRows = 3
        config.retryAfterMilliseconds = 5
        config.target = TargetSize(width: 32, height: 32)
        let ledger = Ledger()
        let loader = try ImageLoader(configuration: config) { ledger.record($0) }
        try loader.setItems(rows)

        let threads = 8, callsPerThread = 1_500
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            var rng = SplitMix(seed: UInt64(thread) + 1)
            var mine: [UInt64] = []
            for _ in 0..<callsPerThread {
                let row = Int(rng.next() % UInt64(rows.count))
                switch rng.next() % 10 {
                case 0, 1, 2, 3:
                    if let ticket = (try? loader.request(row: row))?.ticket {
                        ledger.issue(ticket, row: row)
                        mine.append(ticket)
                    }
                case 4:
                    if !mine.isEmpty { _ = try? loader.cancel(ticket: mine[Int(rng.next() % UInt64(mine.count))]) }
                case 5:
                    try? loader.setVisibleRange(first: row, count: 8)
                case 6:
                    let states: [ScrollState] = [.idle, .dragging, .decelerating, .idle]
                    try? loader.setScrollState(states[Int(rng.next() % 4)], velocity: Double(Int(rng.next() % 9) - 4))
                case 7:
                    _ = try? loader.lookup(row: row)
                case 8:
                    loader.trimMemory(rng.next() % 8 == 0 ? .complete : .moderate)
                default:
                    _ = loader.stats
                }
            }
        }
        try loader.shutdown()

        let issued = ledger.issuedTickets, delivered = ledger.deliveredEvents
        print("stress: \(threads) threads x \(callsPerThread) calls, \(issued.count) tickets, \(delivered.count) events")
        XCTAssertGreaterThan(issued.count, 1_000)
        XCTAssertEqual(Set(delivered.keys), Set(issued.keys), "an event for every ticket, none for anything else")
        for (ticket, rowsSeen) in delivered {
            XCTAssertEqual(rowsSeen, [issued[ticket]!], "ticket \(ticket): exactly one event, for its row")
        }
    }
}
#endif
