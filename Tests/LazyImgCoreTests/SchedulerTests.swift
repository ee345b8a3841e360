#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_5 // ThreadSanitizer group 5 (see the Makefile's tsan)
import XCTest
@testable import LazyImgCore

/// The scheduler driven directly, with no thread, transport or worker: inputs in,
/// effects out, on a clock the test sets (issue 19, B).
final class SchedulerTests: XCTestCase {
    /// The answers the loader would give: a memory cache and a download budget.
    private final class Environment: SchedulerEnvironment {
        var cached: [CacheKey: DecodedImage] = [:]
        var held = 0

        func cachedImage(_ key: CacheKey) -> DecodedImage? { cached[key] }
        func progress(of transfer: TransferID) -> TransferProgress? { nil }
        var heldBytes: Int { held }
        func queueForDecode(_ bytes: Int) { held += bytes }
        func leftDecodeQueue(_ bytes: Int) { held -= bytes }
    }

    private let environment = Environment()
    private var now: Int64 = 1_000
    private var scheduler: Scheduler!
    /// The transfer started for each row's URL, from the effects seen so far.
    private var transfers: [Int: TransferID] = [:]

    override func setUp() {
        start(prefetchRows: 0)
    }

    /// A new scheduler over a list of 100 rows, prefetching `prefetchRows` ahead at rest.
    private func start(prefetchRows: Int) {
        var config = LoaderConfiguration()
        config.prefetchRows = prefetchRows
        config.maxConcurrentDownloads = 16
        scheduler = Scheduler(configuration: config, hasDiskCache: false, environment: environment, jitter: { 0 })
        transfers = [:]
        _ = feed(.listReplaced((0..<100).map { key($0) }))
    }

    private func key(_ row: Int) -> CacheKey {
        CacheKey(url: ImageURL("http://example.test/\(row).jpg"), options: LoaderConfiguration().decodeOptions)
    }

    private func row(of url: ImageURL) -> Int {
        Int(String(decoding: url.bytes, as: UTF8.self).dropFirst("http://example.test/".count).dropLast(4)) ?? -1
    }

    /// Feeds one input at the test's `now` and returns its effects, in order, as words.
    private func feed(_ input: SchedulerInput) -> [String] {
        scheduler.handle(input, now: now)
        var effects: [SchedulerEffect] = []
        scheduler.takeEffects(into: &effects)
        return effects.map(describe)
    }

    private func describe(_ effect: SchedulerEffect) -> String {
        switch effect {
        case .startDownload(let id, let url, _):
            transfers[row(of: url)] = id
            return "start \(row(of: url))"
        case .startFetch(_, let url): return "fetch \(url)"
        case .cancelTransfer(let id, _):
            return "stop \(transfers.first { $0.value == id }?.key ?? -1)"
        case .readDisk(_, let key, _): return "disk \(row(of: key.url))"
        case .decode(let work):
            decodes[work.key] = work
            return "decode \(row(of: work.key.url))"
        case .cache(_, let key, _): return "cache \(row(of: key.url))"
        case .recordFailure(let url, _): return "failure \(row(of: url))"
        case .finish(let event):
            switch event.outcome {
            case .image: return "image \(event.ticket)"
            case .failed(let error): return "failed \(event.ticket) \(error)"
            case .data: return "data \(event.ticket)"
            case .needPage: return "need page"
            case .preview: return "preview \(event.ticket)"
            }
        case .decodePreview(_, let key, _, _): return "decode preview \(row(of: key.url))"
        case .preview(let event): return "preview \(event.ticket)"
        case .event: return "event"
        }
    }

    private var decodes: [CacheKey: DecodeWork] = [:]

    /// One 60 Hz frame as a host reports it: the scroll state, then the visible rows.
    private func frame(_ state: ScrollState, velocity: Double, visible: Range<Int>) -> [String] {
        now += 16
        return feed(.scroll(state, velocity: velocity, at: now)) + feed(.visible(visible))
    }

    /// The rows whose downloads `effects` started.
    private func started(_ effects: [String]) -> Set<Int> {
        Set(effects.compactMap { $0.hasPrefix("start ") ? Int($0.dropFirst("start ".count)) : nil })
    }

    /// A fling down from rows 10..<13, three rows a frame (sixty screens a second,
    /// far from resting, so no landing zone is due), caught at 20..<23: the frames'
    /// effects.
    private func flingDownCaught() -> [String] {
        frame(.dragging, velocity: 180, visible: 13..<16)
            + frame(.decelerating, velocity: 178, visible: 16..<19)
            + frame(.decelerating, velocity: 176, visible: 19..<22)
            + frame(.dragging, velocity: 0, visible: 20..<23)
    }

    /// A host's request that missed, having seen every image cached so far.
    private func request(_ ticket: UInt64, row: Int) -> [String] {
        feed(.request(ticket: ticket, row: row, imagesCached: scheduler.imagesCached))
    }

    private func downloaded(_ row: Int, _ result: Result<[UInt8], LoaderError>, status: Int = 200) -> [String] {
        guard let id = transfers[row] else {
            XCTFail("row \(row) never started")
            return []
        }
        return feed(.downloaded(id, DataResponse(result: result, httpStatus: status), encoded: nil, wallClock: 0))
    }

    private func decoded(_ row: Int, source: ImageSource = .network) -> [String] {
        guard let work = decodes[key(row)] else {
            XCTFail("row \(row) never went to decode")
            return []
        }
        let image = DecodedImage(width: work.bytes.count, height: 1, sourceWidth: work.bytes.count, sourceHeight: 1)!
        return feed(.decoded(job: work.job, key: work.key, .success(image), httpStatus: 200, message: "",
                             source: source, releasedBytes: work.bytes.count))
    }

    func testAVisibleRowStartsThenDecodesThenAnswersItsTicket() {
        XCTAssertEqual(feed(.scroll(.idle, velocity: 0, at: now)), [])
        XCTAssertEqual(feed(.visible(0..<2)), ["start 0", "start 1"], "the window's rows, asked for or not")
        XCTAssertEqual(request(7, row: 0), [], "joins the running download")
        XCTAssertEqual(downloaded(0, .success([1, 2, 3])), ["decode 0"])
        XCTAssertEqual(environment.held, 3, "the file counts in the download budget until decoded")
        XCTAssertEqual(decoded(0), ["cache 0", "image 7"])
        XCTAssertEqual(environment.held, 0)
        XCTAssertEqual(scheduler.stats.downloadsStarted, 2)
        XCTAssertEqual(scheduler.stats.downloadsCoalesced, 1)
    }

    /// Downloads the visible rows `rows` at rest, row r ending `milliseconds(r)` after
    /// they all started, its image from `source`.
    private func downloadAtRest(_ rows: Range<Int>, source: ImageSource = .network,
                                taking milliseconds: (Int) -> Int64) {
        XCTAssertEqual(started(frame(.idle, velocity: 0, visible: rows)), Set(rows))
        let startedAt = now
        for row in rows.sorted(by: { milliseconds($0) < milliseconds($1) }) {
            now = startedAt + milliseconds(row)
            _ = downloaded(row, .success([1]))
            XCTAssertEqual(decoded(row, source: source), ["cache \(row)"])
        }
    }

    func testTheTargetsLeadIsTwiceTheSlowestRecentDownload() {
        XCTAssertEqual(scheduler.view.targetLeadSeconds, 0.5, "nothing downloaded yet: the longest lead")
        downloadAtRest(0..<7) { 100 + 10 * Int64($0) }
        XCTAssertEqual(scheduler.view.targetLeadSeconds, 0.5, "seven downloads are too few to time")
        downloadAtRest(7..<8) { _ in 100 }
        XCTAssertEqual(scheduler.view.targetLeadSeconds, 0.32, accuracy: 1e-9, "twice the slowest, 160 ms")
        downloadAtRest(8..<16) { _ in 40 }
        XCTAssertEqual(scheduler.view.targetLeadSeconds, 0.32, accuracy: 1e-9, "the slow one is among the last 16")
        downloadAtRest(16..<23) { _ in 40 }
        XCTAssertEqual(scheduler.view.targetLeadSeconds, 0.3, "never under the fit's span and a bit")
        downloadAtRest(23..<24) { _ in 900 }
        XCTAssertEqual(scheduler.view.targetLeadSeconds, 0.5, "at most half a second")

        // A 304 that revalidated a disk copy, or a stale copy served on an error,
        // answers from the disk: a round trip or a failure, not a download's time.
        start(prefetchRows: 0)
        downloadAtRest(0..<8, source: .disk) { _ in 10 }
        XCTAssertEqual(scheduler.view.targetLeadSeconds, 0.5)
    }

    func testAFastListHoldsItsRequestsUntilItRests() {
        XCTAssertEqual(feed(.scroll(.dragging, velocity: 100, at: now)), [])
        XCTAssertEqual(feed(.visible(50..<53)), [], "ten screens a second: nothing starts")
        XCTAssertEqual(request(1, row: 51), [])
        now += 16
        let rested = feed(.scroll(.idle, velocity: 0, at: now))
        XCTAssertEqual(Set(rested), ["start 50", "start 51", "start 52"])
        XCTAssertEqual(downloaded(51, .success([9])), ["decode 51"])
        XCTAssertEqual(decoded(51), ["cache 51", "image 1"])
    }

    func testARowThatLeavesEndsItsTicketAndStopsItsDownload() {
        _ = feed(.scroll(.idle, velocity: 0, at: now))
        XCTAssertEqual(feed(.visible(0..<2)), ["start 0", "start 1"])
        XCTAssertEqual(request(3, row: 0), [])
        let moved = feed(.visible(10..<12))
        XCTAssertEqual(Set(moved), ["failed 3 cancelled", "stop 0", "stop 1", "start 10", "start 11"])
        XCTAssertEqual(moved.suffix(2), ["start 10", "start 11"], "the slots freed first")
        XCTAssertEqual(downloaded(0, .success([1])), [], "a stopped transfer that still reports is unknown")
        XCTAssertEqual(scheduler.stats.downloadsCancelled, 2)
    }

    func testATransientFailureWaitsOutItsBackoffOnTheClock() {
        _ = feed(.scroll(.idle, velocity: 0, at: now))
        XCTAssertEqual(feed(.visible(0..<1)), ["start 0"])
        XCTAssertEqual(request(5, row: 0), [])
        let failedAt = now
        XCTAssertEqual(downloaded(0, .failure(.http(status: 503)), status: 503), [], "no event: it retries")
        // The first retry waits half of the 250 ms base delay, jitter 0.
        XCTAssertEqual(scheduler.timerDue, failedAt + 125)
        now = failedAt + 125
        XCTAssertEqual(feed(.timer), ["start 0"])
        XCTAssertNil(scheduler.timerDue)
        XCTAssertEqual(downloaded(0, .failure(.http(status: 404)), status: 404),
                       ["failure 0", "failed 5 http(status: 404)"], "not transient: the ticket ends")
        XCTAssertEqual(scheduler.stats.downloadsRetried, 1)
        XCTAssertEqual(request(6, row: 0), ["failed 6 http(status: 404)"],
                       "the failure answers at once for a while")
    }

    func testAnImageCachedAfterTheHostLookedAnswersItsRequestAtOnce() {
        _ = feed(.scroll(.idle, velocity: 0, at: now))
        XCTAssertEqual(feed(.visible(0..<1)), ["start 0"])
        XCTAssertEqual(downloaded(0, .success([1, 2])), ["decode 0"])
        let seenByTheHost = scheduler.imagesCached
        XCTAssertEqual(decoded(0), ["cache 0"], "fetched unasked")
        environment.cached[key(0)] = DecodedImage(width: 2, height: 1, sourceWidth: 2, sourceHeight: 1)
        XCTAssertEqual(feed(.request(ticket: 4, row: 0, imagesCached: seenByTheHost)), ["image 4"],
                       "cached after the host missed")
        environment.cached[key(9)] = environment.cached[key(0)]
        XCTAssertEqual(request(8, row: 9), ["start 9"],
                       "nothing cached since the host missed: its miss stands, the cache is not asked")
    }

    func testAFlingCaughtAndFlungBackStartsNothingAheadInTheOldDirection() {
        start(prefetchRows: 2)
        XCTAssertEqual(started(frame(.idle, velocity: 0, visible: 10..<13)), Set(10..<15), "at rest: two rows ahead")
        var effects = flingDownCaught()
        for _ in 0..<4 { effects += frame(.dragging, velocity: 0, visible: 20..<23) }
        XCTAssertTrue(started(effects).isSuperset(of: 20..<23), "held still five frames: the rows on screen...")
        XCTAssertFalse(started(effects).contains { $0 >= 23 }, "...and nothing ahead")
        XCTAssertTrue(scheduler.window.ahead.isEmpty)
        effects += frame(.dragging, velocity: -180, visible: 17..<20)
        effects += frame(.decelerating, velocity: -178, visible: 14..<17)
        XCTAssertFalse(started(effects).contains { $0 >= 23 }, "flung back: no row below was ever started")
    }

    func testAFlingCaughtAndHeldToReadPrefetchesOnceTheHoldShowsReading() {
        start(prefetchRows: 2)
        _ = frame(.idle, velocity: 0, visible: 10..<13)
        var effects = flingDownCaught()
        let caughtAt = now
        while now + 16 < caughtAt + ReadingSignal.catchHoldMilliseconds {
            effects += frame(.dragging, velocity: 0, visible: 20..<23)
        }
        XCTAssertFalse(started(effects).contains { $0 >= 23 }, "held, not yet long enough to be reading")
        XCTAssertEqual(started(frame(.dragging, velocity: 0, visible: 20..<23)), [23, 24],
                       "held a reaction time: the user reads, so the rows ahead start")
        XCTAssertEqual(frame(.idle, velocity: 0, visible: 20..<23), [], "let go: they go on")
        XCTAssertEqual(scheduler.window.ahead, 23..<25)
    }

    /// A fling's tail toward the host's target 12..<15, three rows on screen (slower
    /// than three rows a second loads as at rest): its frames' effects. The slow
    /// frame reports its range first, so the scheduler never sees the old range
    /// slow (it would start rows of it for the moment until the range came).
    private func slowIntoTarget() -> [String] {
        var effects = frame(.decelerating, velocity: 30, visible: 4..<7) + feed(.target(12..<15))
        now += 16
        effects += feed(.visible(10..<13)) + feed(.scroll(.decelerating, velocity: 2.5, at: now))
        return effects
    }

    func testASlowingListDoesNotStartTheRowsItLeavesBeforeItRests() {
        var effects = slowIntoTarget()
        XCTAssertEqual(scheduler.window.landing, 11..<15, "the target and a row on the side the list comes from")
        XCTAssertEqual(started(effects), Set(11..<15), "row 10 leaves before the list rests there")
        effects = frame(.decelerating, velocity: 1, visible: 11..<14) + frame(.idle, velocity: 0, visible: 12..<15)
        XCTAssertEqual(started(effects), [], "it rested there: nothing was missing")
        start(prefetchRows: 0)
        effects = slowIntoTarget()
        XCTAssertEqual(request(1, row: 10), [], "asked for, it waits...")
        XCTAssertEqual(started(frame(.idle, velocity: 0, visible: 10..<13)), [10], "...and starts if the list rests short")
    }

    /// Ends the step the test began, and returns what its end decided.
    private func endStep() -> [String] {
        scheduler.endStep(now: now)
        var effects: [SchedulerEffect] = []
        scheduler.takeEffects(into: &effects)
        return effects.map(describe)
    }

    /// One frame as the loop takes it, in one step: the scroll state, then the
    /// visible rows, decided together.
    private func steppedFrame(_ state: ScrollState, velocity: Double, visible: Range<Int>) -> [String] {
        now += 16
        scheduler.beginStep()
        return feed(.scroll(state, velocity: velocity, at: now)) + feed(.visible(visible)) + endStep()
    }

    func testTheFrameAListSlowsStartsOnlyTheRowsItShows() {
        // Ten screens a second (three rows on screen), then below one a screen: the
        // frame that slows reports its state with the last frame's rows first.
        _ = frame(.decelerating, velocity: 30, visible: 4..<7)
        let asCalls = frame(.decelerating, velocity: 2.5, visible: 6..<9)
        XCTAssertTrue(asCalls.contains("stop 4"), "each call alone: an old row starts, then stops: \(asCalls)")
        start(prefetchRows: 0)
        _ = steppedFrame(.decelerating, velocity: 30, visible: 4..<7)
        let stepped = steppedFrame(.decelerating, velocity: 2.5, visible: 6..<9)
        XCTAssertFalse(stepped.contains { $0.hasPrefix("stop") }, "nothing starts only to stop: \(stepped)")
        XCTAssertTrue(started(stepped).isSuperset(of: 6..<9), "the rows it shows start: \(stepped)")
        XCTAssertFalse(started(stepped).contains { $0 < 6 }, "none it left: \(stepped)")
    }

    func testAStepStartsOnceAfterAllOfItsInputs() {
        XCTAssertEqual(started(frame(.idle, velocity: 0, visible: 0..<2)), [0, 1])
        scheduler.beginStep()
        XCTAssertEqual(feed(.visible(10..<12)), [], "a view call waits for the step's other inputs")
        XCTAssertEqual(request(1, row: 11), ["stop 0", "stop 1"],
                       "a request sees the view so far: rows that left stop, nothing starts yet")
        XCTAssertEqual(feed(.visible(20..<22)), [])
        XCTAssertEqual(endStep(), ["failed 1 cancelled", "start 20", "start 21"],
                       "the step's last view decides what starts")
        XCTAssertEqual(scheduler.stats.downloadsStarted, 4)
    }

    func testACancelledTicketLetsItsJobGoOnlyWhenNothingElseWantsIt() {
        // No visible range yet: requests start in the order they came.
        XCTAssertEqual(request(1, row: 4), ["start 4"])
        XCTAssertEqual(request(2, row: 4), [])
        XCTAssertEqual(feed(.cancel(ticket: 1)), ["failed 1 cancelled"], "ticket 2 still wants it")
        XCTAssertEqual(feed(.cancel(ticket: 2)), ["failed 2 cancelled", "stop 4"])
        XCTAssertEqual(feed(.cancel(ticket: 2)), [], "a ticket ends once")
    }

    // MARK: Previews

    /// The scheduler again, with previews at most every `interval` ms, row 0 visible
    /// and its download started for ticket 7.
    private func downloadWithPreviews(every interval: Int) {
        var config = LoaderConfiguration()
        config.prefetchRows = 0
        config.previewIntervalMilliseconds = interval
        scheduler = Scheduler(configuration: config, hasDiskCache: false, environment: environment, jitter: { 0 })
        _ = feed(.listReplaced((0..<100).map { key($0) }))
        _ = feed(.scroll(.idle, velocity: 0, at: now))
        XCTAssertEqual(feed(.visible(0..<1)), ["start 0"])
        XCTAssertEqual(request(7, row: 0), [])
    }

    private func prefix(_ row: Int, scans: Int) -> [String] {
        feed(.receivedPrefix(transfers[row] ?? 0, ReceivedPrefix(bytes: [0xFF, 0xD8], stage: scans)))
    }

    /// Answers the preview decode the last effects asked for.
    private func previewDecoded(_ row: Int) -> [String] {
        let job = scheduler.jobs[key(row)]?.id ?? 0
        return feed(.previewDecoded(job: job, key: key(row), DecodedImage(width: 1, height: 1, sourceWidth: 1,
                                                                           sourceHeight: 1), passes: 0))
    }

    func testAPreviewIsDecodedForNewScansAndGoesToTheTicketBeforeItsImage() {
        downloadWithPreviews(every: 500)
        XCTAssertEqual(prefix(0, scans: 1), ["decode preview 0"])
        XCTAssertEqual(prefix(0, scans: 2), [], "one preview decode of a download at a time")
        XCTAssertEqual(previewDecoded(0), ["preview 7"])
        now += 499
        XCTAssertEqual(prefix(0, scans: 3), [], "within the interval")
        now += 1
        XCTAssertEqual(prefix(0, scans: 3), ["decode preview 0"])
        XCTAssertEqual(downloaded(0, .success([1, 2, 3])), ["decode 0"])
        XCTAssertEqual(previewDecoded(0), [], "the final decode is queued: no preview after it")
        XCTAssertEqual(prefix(0, scans: 9), [])
        XCTAssertEqual(decoded(0), ["cache 0", "image 7"], "previews never enter the cache")
    }

    func testThePrefixThatCameDuringAPreviewDecodeIsDecodedNext() {
        downloadWithPreviews(every: 100)
        XCTAssertEqual(prefix(0, scans: 1), ["decode preview 0"])
        XCTAssertEqual(prefix(0, scans: 2), [])
        XCTAssertEqual(prefix(0, scans: 3), [], "the newest waits")
        now += 100
        XCTAssertEqual(previewDecoded(0), ["preview 7", "decode preview 0"], "the link may stall after it")
        now += 100
        XCTAssertEqual(previewDecoded(0), ["preview 7"], "nothing more waited")
        XCTAssertEqual(prefix(0, scans: 3), [], "no more scans than the last")
        XCTAssertEqual(prefix(0, scans: 4), ["decode preview 0"], "100 ms after the last began")
        now += 10
        XCTAssertEqual(previewDecoded(0), ["preview 7"])
        XCTAssertEqual(prefix(0, scans: 5), [], "too soon: it waits")
        XCTAssertEqual(scheduler.timerDue, now + 90, "until the interval ends")
        now += 90
        XCTAssertEqual(feed(.timer), ["decode preview 0"], "the link stalled: the timer brings it")
    }

    func testPreviewsComeAtMostOncePerIntervalHoweverManyScansArrive() {
        downloadWithPreviews(every: 500)
        var previews = 0
        // A scan every 100 ms for 3 s, each preview decoded at once.
        for scan in 1...30 {
            for effect in prefix(0, scans: scan) where effect == "decode preview 0" {
                previews += previewDecoded(0).filter { $0 == "preview 7" }.count
            }
            now += 100
        }
        XCTAssertEqual(previews, 6, "at 0, 500, ... 2500 ms")
    }

    func testNoPreviewsWhenOffOrOnceTheTicketEnded() {
        downloadWithPreviews(every: 0)
        XCTAssertEqual(prefix(0, scans: 1), [], "0: no previews")
        downloadWithPreviews(every: 100)
        XCTAssertEqual(prefix(0, scans: 1), ["decode preview 0"])
        XCTAssertEqual(feed(.cancel(ticket: 7)), ["failed 7 cancelled"], "the visible row's download goes on")
        XCTAssertEqual(previewDecoded(0), [], "no ticket is left to show it")
        now += 100
        XCTAssertEqual(prefix(0, scans: 2), [])
    }

    func testNoPreviewForARowOffScreen() {
        downloadWithPreviews(every: 100)
        XCTAssertEqual(request(8, row: 40), ["start 40"], "asked for outside the window")
        XCTAssertEqual(prefix(40, scans: 1), [], "no row of its tickets is on screen")
        XCTAssertEqual(prefix(0, scans: 1), ["decode preview 0"])
    }
}
#endif
