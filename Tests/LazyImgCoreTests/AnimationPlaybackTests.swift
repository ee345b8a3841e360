#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_5 // ThreadSanitizer group 5 (see the Makefile's tsan)
import TestSupport
import XCTest
@testable import LazyImgCore

/// Animations through the loader: frames on demand at the box size, the buffer's
/// bound, decoding that stops when a row leaves, and frames dropped before images.
///
/// One decode thread, real decoders, a fake transport. "Idle" waits for a job queued
/// behind every other on that thread: the batches asked for so far are done. Their
/// frames wait in the players' mailboxes until a frame call (or `player(_:row:)`)
/// takes them.
final class AnimationPlaybackTests: XCTestCase {
    /// 40 x 30, 12 frames of 50 ms, frame n filled with colour n: a frame is known by
    /// any of its pixels. Box 20 x 20: frames of 20 x 15, 1200 bytes.
    static let frameCount = 12
    static let frameBytes = 20 * 15 * 4
    static let canvasBytes = 40 * 30 * 4
    static func gif(seed: Int = 0) -> [UInt8] {
        ColourCycle.gif(width: 40, height: 30, count: frameCount, seed: seed)
    }

    private func harness(bufferFrames: Int, memory: Int = 64 << 20,
                         configure: (inout LoaderConfiguration) -> Void = { _ in }) throws -> PolicyHarness {
        let h = try PolicyHarness(configure: { config in
            config.target = TargetSize(width: 20, height: 20)
            config.animationBufferBytes = bufferFrames * Self.frameBytes
            config.memoryCacheBytes = memory
            configure(&config)
        }, makeDecoder: { ImageDecoder() })
        try h.loader.setItems(PolicyHarness.urls(10))
        return h
    }

    /// Requests `rows` and completes their downloads with animations; returns the first
    /// frames.
    @discardableResult
    private func load(_ h: PolicyHarness, rows: Range<Int>, bytes: (Int) -> [UInt8] = { AnimationPlaybackTests.gif(seed: $0) })
        throws -> [DecodedImage] {
        let before = h.log.all.count
        for row in rows { XCTAssertNotNil(try h.loader.request(row: row).ticket) }
        for row in rows { XCTAssertTrue(h.transport.complete(PolicyHarness.urls(10)[row]!, with: .success(bytes(row)))) }
        h.deliver(until: before + rows.count)
        return try rows.map { try XCTUnwrap(h.loader.lookup(row: $0)) }
    }

    // Each range is followed by `h.settle()`: which rows are visible, and so which
    // animations play, is the scheduler's to decide, on its thread.

    /// Runs the decode thread until the playing animations want nothing more where
    /// their playheads are: each round waits for the jobs queued, then has each
    /// player take what they made and ask for what it still wants, as its next frame
    /// call would (also a batch a frame call could not queue, the queue's lock being
    /// taken at that moment).
    private func idle(_ h: PolicyHarness) {
        for _ in 0..<100 {
            let done = expectation(description: "the decode thread has nothing left")
            h.loader.workers.submit(priority: .max) { _ in done.fulfill() }
            wait(for: [done], timeout: 10)
            let asked = h.loader.front.withLock { s in
                let players = s.animations.playing.compactMap { s.animations.players[$0] }
                for player in players where player.drain() { s.animationMemoryDidChange() }
                for player in players { h.loader._decodeAhead(player, in: &s) }
                return players.contains { $0.isDecoding }
            }
            if !asked { return }
        }
        XCTFail("batches still asked for after 100 rounds")
    }

    /// Frame `index` as the buffer holds it once it took what its batch made, without
    /// moving the playhead.
    private func buffered(_ h: PolicyHarness, row: Int = 0, _ index: Int) -> DecodedImage? {
        player(h, row: row)?.frame(index)
    }

    /// Which frame an image shows, by its top-left pixel's colour.
    private func shown(_ image: DecodedImage?, seed: Int = 0) -> Int? {
        guard let image else { return nil }
        return ColourCycle.frame(ofPixel: Array(image.row(0)[0..<3]), count: Self.frameCount)
            .map { ($0 - seed + Self.frameCount) % Self.frameCount }
    }

    /// The row's image in the cache, without marking it used.
    private func cached(_ h: PolicyHarness, row: Int) -> DecodedImage? {
        h.loader.front.withLock { s in s.rows[row].flatMap { s.cache.peek($0) } }
    }

    /// The row's player, after it took what its batch left in its mailbox (as the
    /// next frame call would), the memory accounted.
    private func player(_ h: PolicyHarness, row: Int = 0) -> AnimationPlayer? {
        h.loader.front.withLock { s in
            let player = s.rows[row].flatMap { s.animations.players[$0] }
            if player?.drain() == true { s.animationMemoryDidChange() }
            return player
        }
    }

    func testFramesComeAtTheBoxSizeAheadOfTheOneShownWithinTheBuffer() throws {
        let h = try harness(bufferFrames: 4)
        try h.loader.setVisibleRange(first: 0, count: 1)
        h.settle()
        let first = try XCTUnwrap(try load(h, rows: 0..<1).first)
        XCTAssertEqual(first.animation?.frameCount, Self.frameCount)

        guard case .frame(let zero) = try h.loader.frame(row: 0, at: 0).answer else { return XCTFail("frame 0") }
        XCTAssertTrue(zero === first, "frame 0 is the image the row already has")
        idle(h)
        XCTAssertEqual((1..<5).map { shown(buffered(h, $0)) }, [1, 2, 3, nil], "the window ahead of frame 0")
        XCTAssertEqual(h.loader.stats.animationBytes, UInt64(3 * Self.frameBytes + Self.canvasBytes))

        // Frame 4 was not in the window: not yet; then frames 4-7, and 1-3 dropped.
        guard case .notYet = try h.loader.frame(row: 0, index: 4) else { return XCTFail("frame 4 was not decoded") }
        idle(h)
        XCTAssertEqual((1..<9).map { shown(buffered(h, $0)) }, [nil, nil, nil, 4, 5, 6, 7, nil])
        XCTAssertEqual(player(h)?.frames.count, 4)
        let stats = h.loader.stats
        XCTAssertEqual(stats.animationBytes, UInt64(4 * Self.frameBytes + Self.canvasBytes), "the buffer's bound")
        XCTAssertEqual(stats.memoryCacheBytes, UInt64(first.byteCount) + stats.animationBytes)
        XCTAssertEqual(stats.framesDecoded, 7)

        guard case .frame(let image) = try h.loader.frame(row: 0, index: 5) else { return XCTFail("frame 5") }
        XCTAssertEqual([image.width, image.height], [20, 15])
        let found = try h.loader.frame(row: 0, at: 12 * 50 + 5 * 50 + 1)
        XCTAssertEqual(found.index, 5, "the second loop")
        XCTAssertEqual(found.nextChange, 12 * 50 + 6 * 50)
    }

    func testAnAnimationThatFitsIsDecodedOnceAndLoopsForNothing() throws {
        let h = try harness(bufferFrames: Self.frameCount)
        try h.loader.setVisibleRange(first: 0, count: 1)
        h.settle()
        try load(h, rows: 0..<1)
        _ = try h.loader.frame(row: 0, at: 0)
        idle(h)
        XCTAssertEqual(h.loader.stats.framesDecoded, UInt64(Self.frameCount - 1))
        for time in Swift.stride(from: UInt64(0), to: 3 * 600, by: 25) {
            let found = try h.loader.frame(row: 0, at: time)
            guard case .frame(let image) = found.answer else { return XCTFail("frame at \(time) not ready") }
            XCTAssertEqual(shown(image), found.index)
        }
        idle(h)
        XCTAssertEqual(h.loader.stats.framesDecoded, UInt64(Self.frameCount - 1), "three loops, no decode")
    }

    func testARowThatLeavesStopsDecodingAndOneThatComesBackResumes() throws {
        let h = try harness(bufferFrames: 2)
        try h.loader.setVisibleRange(first: 0, count: 1)
        h.settle()
        try load(h, rows: 0..<1)
        _ = try h.loader.frame(row: 0, index: 0)
        idle(h)
        XCTAssertEqual(h.loader.stats.framesDecoded, 1)

        try h.loader.setVisibleRange(first: 5, count: 3)

        h.settle()
        XCTAssertEqual(player(h)?.isStopped, true)
        // Asked for while off screen: nothing decodes.
        for index in 2..<6 {
            guard case .notYet = try h.loader.frame(row: 0, index: index) else { return XCTFail("frame \(index)") }
        }
        idle(h)
        XCTAssertEqual(h.loader.stats.framesDecoded, 1, "no frame decoded off screen")

        try h.loader.setVisibleRange(first: 0, count: 1)

        h.settle()
        _ = try h.loader.frame(row: 0, index: 6)
        idle(h)
        XCTAssertEqual(h.loader.stats.framesDecoded, 3, "frames 6 and 7 once it is back")
        XCTAssertEqual(shown(buffered(h, 6)), 6)
    }

    /// A trim drops the stopped animations' frames first, then the playing ones'
    /// frames ahead, before any image.
    func testATrimDropsFramesFirst() throws {
        let h = try harness(bufferFrames: 4)
        try h.loader.setVisibleRange(first: 0, count: 2)
        h.settle()
        let firsts = try load(h, rows: 0..<2)
        for row in 0..<2 { _ = try h.loader.frame(row: row, index: 1) }
        idle(h)
        try h.loader.setVisibleRange(first: 0, count: 1)
        h.settle()
        XCTAssertEqual(player(h, row: 1)?.isStopped, true)
        XCTAssertEqual(h.loader.stats.animationBytes, UInt64(2 * (4 * Self.frameBytes + Self.canvasBytes)))

        h.loader.trimMemory(.moderate)
        XCTAssertEqual(player(h, row: 1)?.bytes, 0, "the stopped animation's frames and canvas")
        XCTAssertEqual(player(h, row: 0)?.frames.keys.sorted(), [1], "the playing one keeps the frame it shows")
        XCTAssertEqual(h.loader.stats.animationBytes, UInt64(Self.frameBytes + Self.canvasBytes))
        for row in 0..<2 { XCTAssertTrue(try h.loader.lookup(row: row) === firsts[row], "images stay") }

        h.loader.trimMemory(.complete)
        XCTAssertEqual(h.loader.stats.animationBytes, 0)
        guard case .miss = try h.loader.frame(row: 0, index: 1) else { return XCTFail("the first frame left too") }
    }

    /// When memory is short, a stopped animation's frames and canvas go before any
    /// image; then images go by age, but never the one of a row on screen, older
    /// though it is, and the playing animation keeps its whole window.
    func testMemoryPressureTakesStoppedFramesFirstAndSparesTheRowsOnScreen() throws {
        let first = try XCTUnwrap(try ImageDecoder().decode(Self.gif(), target: TargetSize(width: 20, height: 20),
                                                           limits: DecodeLimits()))
        let source = try XCTUnwrap(AnimationSource.make(from: Self.gif(), limits: DecodeLimits()))
        let still = first.byteCount + source.byteCount
        let playing = 4 * Self.frameBytes + Self.canvasBytes
        // Room for three first frames and one animation playing.
        let capacity = 3 * still + playing
        let h = try harness(bufferFrames: 4, memory: capacity)
        try h.loader.setVisibleRange(first: 0, count: 3)
        h.settle()
        // Row 2's image is the oldest.
        try load(h, rows: 2..<3)
        let firsts = try load(h, rows: 0..<2)
        _ = try h.loader.frame(row: 1, index: 1)
        idle(h)
        XCTAssertEqual(h.loader.stats.animationBytes, UInt64(playing))
        try h.loader.setVisibleRange(first: 2, count: 2)
        h.settle()
        XCTAssertEqual(player(h, row: 1)?.isStopped, true)

        // Row 2 plays: the stopped animation's frames and canvas make the room.
        _ = try h.loader.frame(row: 2, index: 1)
        idle(h)
        XCTAssertEqual(player(h, row: 1)?.bytes, 0, "the stopped animation's frames and canvas first")
        for row in 0..<2 { XCTAssertTrue(cached(h, row: row) === firsts[row], "row \(row): no image went") }

        // An image for row 3, on screen: the oldest image off screen goes.
        try load(h, rows: 3..<4)
        XCTAssertNotNil(cached(h, row: 2), "on screen: spared, the oldest though it is")
        XCTAssertNil(cached(h, row: 0), "the oldest image off screen")
        XCTAssertTrue(cached(h, row: 1) === firsts[1])
        XCTAssertEqual(player(h, row: 2)?.frames.keys.sorted(), [1, 2, 3, 4], "its whole window")
        XCTAssertLessThanOrEqual(h.loader.stats.memoryCacheBytes, UInt64(capacity))

        // A player goes with its first frame.
        try h.loader.removeFromDiskCache(url: ImageURL(try XCTUnwrap(PolicyHarness.urls(10)[2])))
        XCTAssertNil(player(h, row: 2), "a player goes with its first frame")
    }

    /// A budget too small for the playing animations' buffers: windows of three
    /// frames, first frames kept, no frame decoded twice; full buffers again once one
    /// stops.
    func testATightBudgetSqueezesWindowsToThreeFrames() throws {
        let first = try XCTUnwrap(try ImageDecoder().decode(Self.gif(), target: TargetSize(width: 20, height: 20),
                                                           limits: DecodeLimits()))
        let source = try XCTUnwrap(AnimationSource.make(from: Self.gif(), limits: DecodeLimits()))
        let still = first.byteCount + source.byteCount
        // Two animations fit with three frames each, not with six.
        let capacity = 2 * (still + Self.canvasBytes + 3 * Self.frameBytes) + Self.frameBytes
        let h = try harness(bufferFrames: 6, memory: capacity)
        try h.loader.setVisibleRange(first: 0, count: 2)
        h.settle()
        let firsts = try load(h, rows: 0..<2)
        for row in 0..<2 { _ = try h.loader.frame(row: row, index: 1) }
        idle(h)
        // The batch row 0 began before the squeeze stopped: what it missed comes now.
        for row in 0..<2 { _ = try h.loader.frame(row: row, index: 1) }
        idle(h)
        for row in 0..<2 {
            XCTAssertEqual(player(h, row: row)?.frames.keys.sorted(), [1, 2, 3], "row \(row): the frame shown and two")
            XCTAssertTrue(cached(h, row: row) === firsts[row], "first frames stay")
        }
        XCTAssertLessThanOrEqual(h.loader.stats.memoryCacheBytes, UInt64(capacity))
        XCTAssertLessThanOrEqual(h.loader.stats.framesDecoded, 9, "no frame decoded over and over: at most the "
                                 + "three past the squeezed window of the batch row 0 began first")

        // Row 1 leaves: row 0 has room for its whole buffer again.
        try h.loader.setVisibleRange(first: 0, count: 1)
        h.settle()
        _ = try h.loader.frame(row: 0, index: 2)
        idle(h)
        XCTAssertEqual(player(h, row: 0)?.frames.keys.sorted(), [2, 3, 4, 5, 6, 7])
        XCTAssertEqual(player(h, row: 1)?.bytes, 0, "the stopped animation made the room")
        XCTAssertLessThanOrEqual(h.loader.stats.memoryCacheBytes, UInt64(capacity))
    }

    /// The session's budget counts the frames, and takes them before images.
    func testTheSessionBudgetCountsFramesAndTakesThemFirst() throws {
        let session = try ImageSession(diskCacheDirectory: nil, diskCacheBytes: 0, maxConcurrentDownloads: 6,
                                       memoryCacheBytes: 64 << 20, transport: FakeTransport())
        let h = try harness(bufferFrames: 4) { $0.session = session }
        try h.loader.setVisibleRange(first: 0, count: 1)
        h.settle()
        let first = try XCTUnwrap(try load(h, rows: 0..<1).first)
        _ = try h.loader.frame(row: 0, index: 1)
        idle(h)
        let budget = try XCTUnwrap(session.memoryBudget)
        XCTAssertEqual(budget.totalBytes, first.byteCount + 4 * Self.frameBytes + Self.canvasBytes)
        try h.loader.setVisibleRange(first: 3, count: 1)
        h.settle()
        let eviction = h.loader.front.withLock { s in s.evictAnimationsForSession() }
        XCTAssertNotNil(eviction)
        XCTAssertEqual(budget.totalBytes, first.byteCount, "the stopped frames went; the image stays")
    }

    /// A loader that does not play animations keeps 0.3's behaviour: the first frame,
    /// no file bytes held, and the image is its own only frame.
    func testALoaderThatDoesNotPlayHandsOutFirstFrames() throws {
        let h = try harness(bufferFrames: 0)
        try h.loader.setVisibleRange(first: 0, count: 1)
        h.settle()
        let first = try XCTUnwrap(try load(h, rows: 0..<1).first)
        XCTAssertTrue(first.isAnimated)
        XCTAssertNil(first.animation)
        XCTAssertEqual(first.byteCount, first.stride * first.height)
        let found = try h.loader.frame(row: 0, at: 1234)
        guard case .frame(let image) = found.answer else { return XCTFail("the still") }
        XCTAssertTrue(image === first)
        XCTAssertEqual(found.index, 0)
        XCTAssertNil(found.nextChange)
        XCTAssertThrowsError(try h.loader.frame(row: 0, index: 1))
        idle(h)
        XCTAssertEqual(h.loader.stats.framesDecoded, 0)
    }
}
#endif
