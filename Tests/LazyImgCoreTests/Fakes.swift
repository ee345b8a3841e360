import Dispatch
import Synchronization
import XCTest
@testable import LazyImgCore
import TestSupport

/// A transport that starts nothing: tests see what was started and complete it by hand.
/// Before it answers what was started, it waits for the loader's scheduler to have
/// handled the test's calls so far (`settle`): the scheduler decides on its own thread.
final class FakeTransport: DataLoading, @unchecked Sendable {
    struct Started {
        let id: TransferID
        let url: String
        let completion: @Sendable (TransferID, DataResponse) -> Void
    }

    private let lock = Locked<(started: [Started], cancelled: [TransferID], live: [TransferID: Started])>(([], [], [:]))
    private let progressByURL = Locked<[String: TransferProgress]>([:])
    /// The schedulers whose steps `settle` waits for: weakly, as each loop holds
    /// its transport.
    private struct WeakLoop {
        weak var loop: SchedulerLoop?
    }
    private let loops = Locked<[WeakLoop]>([])

    /// Answers once `loader`'s scheduler has handled the calls so far.
    func waitsFor(_ loader: ImageLoader) { loops.withLock { $0.append(WeakLoop(loop: loader.loop)) } }

    func settle() {
        for entry in loops.withLock({ $0 }) { entry.loop?.waitForStep() }
    }

    /// Set by `holdNextStart`: the next start signals `held` and waits for `release`.
    private let gate = Locked<(held: DispatchSemaphore, release: DispatchSemaphore)?>(nil)

    /// Makes the next start block the scheduler's thread, in the middle of its step,
    /// until the returned release is signalled (or a minute passed: a hang guard);
    /// `held` is signalled once it blocks. Calls the test makes meanwhile wait for
    /// the loop's next step, all together.
    func holdNextStart() -> (held: DispatchSemaphore, release: DispatchSemaphore) {
        let pair = (held: DispatchSemaphore(value: 0), release: DispatchSemaphore(value: 0))
        gate.withLock { $0 = pair }
        return pair
    }

    func start(_ id: TransferID, _ request: DataRequest,
               completion: @escaping @Sendable (TransferID, DataResponse) -> Void) {
        let started = Started(id: id, url: request.url.description, completion: completion)
        lock.withLock { $0.started.append(started); $0.live[id] = started }
        if let gate = gate.withLock({ g in defer { g = nil }; return g }) {
            gate.held.signal()
            _ = gate.release.wait(timeout: .now() + .milliseconds(HangGuard.eventMilliseconds))
        }
    }

    func cancel(_ id: TransferID) {
        lock.withLock { $0.cancelled.append(id); $0.live[id] = nil }
    }

    func shutdown() {
        lock.withLock { $0.live.removeAll() }
    }

    func progress(of id: TransferID) -> TransferProgress? {
        guard let url = lock.withLock({ $0.live[id]?.url }) else { return nil }
        return progressByURL.withLock { $0[url] }
    }

    /// What `progress(of:)` reports for the live transfer of `url`.
    func setProgress(_ url: String, received: Int, expected: Int?) {
        progressByURL.withLock { $0[url] = TransferProgress(received: received, expected: expected) }
    }

    var startedURLs: [String] {
        settle()
        return lock.withLock { $0.started.map(\.url) }
    }
    var cancelledCount: Int {
        settle()
        return lock.withLock { $0.cancelled.count }
    }
    var liveURLs: Set<String> {
        settle()
        return lock.withLock { Set($0.live.values.map(\.url)) }
    }

    /// Completes the live transfer of `url` (from the calling thread, as the network
    /// thread would) and waits for the scheduler to take it. Returns false when none
    /// is live.
    @discardableResult
    func complete(_ url: String, with result: Result<[UInt8], LoaderError>, httpStatus: Int = 200,
                  retryAfterMilliseconds: Int64? = nil, cacheHeaders: HTTPCacheHeaders = HTTPCacheHeaders()) -> Bool {
        settle()
        let transfer = lock.withLock { state -> Started? in
            guard let match = state.live.values.first(where: { $0.url == url }) else { return nil }
            state.live[match.id] = nil
            return match
        }
        guard let transfer else { return false }
        transfer.completion(transfer.id, DataResponse(result: result, httpStatus: httpStatus,
                                                      retryAfterMilliseconds: retryAfterMilliseconds,
                                                      cacheHeaders: cacheHeaders))
        // Handled before the test moves on (its clock, its next call).
        settle()
        return true
    }
}

/// "Decodes" bytes into a 1-row image as wide as the byte count; empty bytes are corrupt.
struct WidthFromBytesDecoder: ImageDecoding {
    func decode(_ data: [UInt8], options: DecodeOptions, limits: DecodeLimits) throws(LoaderError) -> DecodedImage {
        guard !data.isEmpty else { throw .decode }
        guard let image = DecodedImage(width: data.count, height: 1, sourceWidth: data.count, sourceHeight: 1)
        else { throw .noMemory }
        return image
    }
}

/// Time that moves only when a test says so.
final class ManualClock: LazyImgCore.Clock, @unchecked Sendable {
    private let now = Atomic<Int64>(1_000)
    var nowMilliseconds: Int64 { now.load(ordering: .relaxed) }
    func advance(by milliseconds: Int64) { now.add(milliseconds, ordering: .relaxed) }
}

/// Collects delivered events.
final class EventLog: @unchecked Sendable {
    private let events = Locked<[LoaderEvent]>([])
    func record(_ event: LoaderEvent) { events.withLock { $0.append(event) } }
    var all: [LoaderEvent] { events.withLock { $0 } }
    func events(for ticket: UInt64) -> [LoaderEvent] { all.filter { $0.ticket == ticket } }
}

extension LoaderEvent {
    var image: DecodedImage? {
        if case .image(let image, _) = outcome { return image }
        return nil
    }
    var error: LoaderError? {
        if case .failed(let error) = outcome { return error }
        return nil
    }
}

extension ImageLoader.RequestResult {
    var ticket: UInt64? {
        switch self {
        case .pending(let t), .deferred(let t): return t
        case .image: return nil
        }
    }
    var isDeferred: Bool { if case .deferred = self { return true } else { return false } }
    var isPending: Bool { if case .pending = self { return true } else { return false } }
    var image: DecodedImage? { if case .image(let i) = self { return i } else { return nil } }
}

/// A loader on fakes, in host delivery, plus helpers to drive it.
final class PolicyHarness {
    let transport = FakeTransport()
    let clock = ManualClock()
    let log = EventLog()
    let loader: ImageLoader

    init(maxConcurrent: Int = 6, prefetchRows: Int? = 0, configure: (inout LoaderConfiguration) -> Void = { _ in },
         decodeQueueBytes: Int = LoaderConfiguration().decodeQueueBytes,
         makeDecoder: @escaping @Sendable () -> any ImageDecoding = { WidthFromBytesDecoder() },
         jitter: @escaping @Sendable () -> Double = { 0.5 }, file: StaticString = #filePath, line: UInt = #line) throws {
        var config = LoaderConfiguration()
        config.maxConcurrentDownloads = maxConcurrent
        // The fake rows share one host: its cap is HostSlotsTests' subject, not theirs.
        config.maxHostConnections = maxConcurrent
        config.prefetchRows = prefetchRows
        config.retryAfterMilliseconds = 2_000
        config.decodeThreads = 1
        config.decodeQueueBytes = decodeQueueBytes
        configure(&config)
        let log = self.log
        loader = try ImageLoader(configuration: config, transport: transport,
                                 makeDecoder: makeDecoder, clock: clock, jitter: jitter) { log.record($0) }
        transport.waitsFor(loader)
    }

    /// Waits until the scheduler has handled every call so far (and looked at its
    /// timer, after the test moved the clock).
    func settle() { loader.loop.waitForStep() }

    /// The loader's counters once the scheduler has handled every call so far.
    var stats: LoaderStats {
        settle()
        return loader.stats
    }

    /// Dispatches until `count` events in all have been delivered, waiting on the
    /// event queue (never sleeping); fails after 10 s.
    func deliver(until count: Int, file: StaticString = #filePath, line: UInt = #line) {
        while log.all.count < count {
            guard (try? loader.waitForEvents(milliseconds: HangGuard.eventMilliseconds)) == true else {
                XCTFail("timed out with \(log.all.count) of \(count) events", file: file, line: line)
                return
            }
            _ = loader.dispatch(max: 0)
        }
    }

    /// Waits until every downloaded body handed to the decode thread has been decoded
    /// or skipped, so a test's next step sees their results in the cache. The decode
    /// thread is real: without this, how many rows a test sees start again depends on
    /// whether a decode ran before its row left the window (under load it often did
    /// not). Polls the loader's own count, yielding the core; fails after 10 s.
    func waitForDecodes(file: StaticString = #filePath, line: UInt = #line) {
        let deadline = MonotonicClock().nowMilliseconds + 10_000
        settle()
        while loader.downloadBudget.heldBytes > 0 {
            guard MonotonicClock().nowMilliseconds < deadline else {
                return XCTFail("decodes still queued after 10 s", file: file, line: line)
            }
            sched_yield()
        }
        // The budget hears back as the scheduler takes the result: its step is done.
        settle()
    }

    static func urls(_ count: Int, distinct: Bool = true) -> [String?] {
        (0..<count).map { "http://example.test/\(distinct ? $0 : 0).jpg" }
    }
}
