#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_2 // ThreadSanitizer group 2 (see the Makefile's tsan)
import XCTest
@testable import LazyImgCore

/// The ring a frame's calls write their inputs to: each input taken once and as
/// given, a full ring refusing without waiting, and the inbox's inputs merged in
/// the order the host gave them.
final class HostInputRingTests: XCTestCase {
    func testEachKindComesOutAsItWentIn() throws {
        let ring = try XCTUnwrap(HostInputRing())
        XCTAssertTrue(ring.push(.scroll(.decelerating, velocity: -1234.5, at: 987_654_321)))
        XCTAssertTrue(ring.push(.visible(40..<52)))
        XCTAssertTrue(ring.push(.target(0..<0)))
        XCTAssertTrue(ring.push(.request(ticket: 77, row: 1_999, imagesCached: 5)))
        XCTAssertFalse(ring.push(.cancel(ticket: 77)), "other kinds go through the inbox")
        XCTAssertEqual(ring.inputsGiven, 4)

        guard case .scroll(let state, let velocity, let at)? = ring.take(imagesCached: 9) else { return XCTFail() }
        XCTAssertEqual(state, .decelerating)
        XCTAssertEqual(velocity, -1234.5)
        XCTAssertEqual(at, 987_654_321)
        guard case .visible(let rows)? = ring.take(imagesCached: 9) else { return XCTFail() }
        XCTAssertEqual(rows, 40..<52)
        guard case .target(let target)? = ring.take(imagesCached: 9) else { return XCTFail() }
        XCTAssertTrue(target.isEmpty)
        guard case .request(let ticket, let row, let imagesCached)? = ring.take(imagesCached: 9) else { return XCTFail() }
        XCTAssertEqual([ticket, UInt64(row), imagesCached], [77, 1_999, 5])
        XCTAssertNil(ring.take(imagesCached: 9))
        XCTAssertFalse(ring.hasInput)
    }

    func testARequestsCountOfCachedImagesSurvivesKeepingItsLowHalf() throws {
        let ring = try XCTUnwrap(HostInputRing())
        let seen: UInt64 = 1 << 32 + 3
        XCTAssertTrue(ring.push(.request(ticket: 1, row: 0, imagesCached: seen)))
        XCTAssertTrue(ring.push(.request(ticket: 2, row: 0, imagesCached: (1 << 32) - 2)))
        guard case .request(_, _, let first)? = ring.take(imagesCached: seen + 10) else { return XCTFail() }
        XCTAssertEqual(first, seen)
        guard case .request(_, _, let second)? = ring.take(imagesCached: seen + 10) else { return XCTFail() }
        XCTAssertEqual(second, (1 << 32) - 2, "across the low half's wrap")
    }

    func testAFullRingRefusesAtOnceAndTakesAgainOnceRead() throws {
        let ring = try XCTUnwrap(HostInputRing())
        for row in 0..<Int(HostInputRing.capacity) {
            XCTAssertTrue(ring.push(.request(ticket: UInt64(row) + 1, row: row, imagesCached: 0)))
        }
        XCTAssertFalse(ring.push(.visible(0..<1)), "every slot is taken")
        XCTAssertNotNil(ring.take(imagesCached: 0))
        XCTAssertTrue(ring.push(.visible(0..<1)))
        var taken = 0
        while ring.take(imagesCached: 0) != nil { taken += 1 }
        XCTAssertEqual(taken, Int(HostInputRing.capacity))
    }

    func testEveryThreadsInputsAreTakenOnceInTheirOrder() throws {
        let ring = try XCTUnwrap(HostInputRing())
        let threads = 4, each = 20_000
        let done = DispatchGroup()
        for thread in 0..<threads {
            DispatchQueue.global().async(group: done) {
                for index in 0..<each {
                    // A full ring is refused; this writer tries again, as no host does.
                    while !ring.push(.request(ticket: UInt64(index), row: thread, imagesCached: 0)) { sched_yield() }
                }
            }
        }
        var next = [UInt64](repeating: 0, count: threads)
        var taken = 0
        while taken < threads * each {
            guard case .request(let ticket, let row, _)? = ring.take(imagesCached: 0) else { continue }
            XCTAssertEqual(ticket, next[row], "thread \(row)'s inputs in its order")
            next[row] = ticket + 1
            taken += 1
        }
        done.wait()
        XCTAssertNil(ring.take(imagesCached: 0))
        XCTAssertEqual(ring.inputsGiven, UInt64(threads * each))
    }

    func testInboxInputsComeBeforeTheRingPositionsClaimedAfterThem() {
        var batch: [SchedulerInput] = []
        var waiting = [TaggedHostInput(after: 0, input: .cancel(ticket: 1)),
                       TaggedHostInput(after: 2, input: .cancel(ticket: 2)),
                       TaggedHostInput(after: 3, input: .cancel(ticket: 3)),
                       TaggedHostInput(after: 5, input: .cancel(ticket: 4))]
        // Positions 0 and 1 were taken; the reader has read 0...2 so far.
        TaggedHostInput.merge(ring: [.visible(0..<1), .visible(1..<2), .visible(2..<3)], from: 0,
                              waiting: &waiting, into: &batch)
        XCTAssertEqual(batch.map(Self.name), ["cancel 1", "visible 0", "visible 1", "cancel 2", "visible 2", "cancel 3"])
        XCTAssertEqual(waiting.count, 1, "given after position 4, which no one has published yet")
        batch.removeAll()
        TaggedHostInput.merge(ring: [.visible(3..<4), .visible(4..<5)], from: 3, waiting: &waiting, into: &batch)
        XCTAssertEqual(batch.map(Self.name), ["visible 3", "visible 4", "cancel 4"])
        XCTAssertTrue(waiting.isEmpty)
    }

    func testALaterInboxInputWaitsBehindAnEarlierOneThatWaits() {
        var batch: [SchedulerInput] = []
        var waiting = [TaggedHostInput(after: 2, input: .cancel(ticket: 1)),
                       TaggedHostInput(after: 1, input: .cancel(ticket: 2))]
        TaggedHostInput.merge(ring: [.visible(0..<1)], from: 0, waiting: &waiting, into: &batch)
        XCTAssertEqual(batch.map(Self.name), ["visible 0"])
        XCTAssertEqual(waiting.count, 2, "the inbox's order is the order they were given")
    }

    /// A step reads the ring, then the inbox. A list given between the two reads
    /// is in the inbox when it is taken, and the request that follows it in the
    /// ring waits for the next step; read the other way round, the request came a
    /// step before its row existed, and was dropped.
    func testAListGivenBetweenAStepsTwoReadsComesBeforeTheRequestAfterIt() throws {
        let h = try PolicyHarness()
        try h.loader.setItems(PolicyHarness.urls(10))
        try h.loader.setScrollState(.idle, velocity: 0)
        h.settle()
        let loader = h.loader
        let answer = Locked<ImageLoader.RequestResult?>(nil)
        loader.loop.betweenRingAndInbox.withLock { hook in
            hook = {
                loader.loop.betweenRingAndInbox.withLock { $0 = nil }
                try? loader.appendItems(["http://example.test/late.jpg"])
                let result = try? loader.request(row: 10)
                answer.withLock { $0 = result }
            }
        }
        try h.loader.setVisibleRange(first: 0, count: 3)
        h.settle()
        h.settle()
        XCTAssertTrue(answer.withLock { $0?.isPending } == true, "the hook ran and the request missed")
        XCTAssertTrue(h.transport.liveURLs.contains("http://example.test/late.jpg"),
                      "the request was handled after its list: \(h.transport.liveURLs)")
    }

    private static func name(_ input: SchedulerInput) -> String {
        switch input {
        case .cancel(let ticket): "cancel \(ticket)"
        case .visible(let rows): "visible \(rows.lowerBound)"
        default: "other"
        }
    }
}

#endif
