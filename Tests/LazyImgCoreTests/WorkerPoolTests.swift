#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_1 // ThreadSanitizer group 1 (see the Makefile's tsan)
import LazyImgCore
import XCTest

/// Records what jobs did, and lets a test wait for it without sleeping.
private final class Recorder: @unchecked Sendable {
    private let condition = Condition()
    private var events: [String] = []
    private var flags: Set<String> = []

    func record(_ event: String) {
        condition.locked {
            events.append(event)
            condition.broadcast()
        }
    }

    var recorded: [String] { condition.locked { events } }

    /// Waits (at most 10 s, so a bug fails instead of hanging) until `predicate` holds.
    func wait(until predicate: ([String]) -> Bool) -> Bool {
        condition.locked {
            while !predicate(events) {
                if !condition.wait(milliseconds: 10_000) { return predicate(events) }
            }
            return true
        }
    }

    func open(_ flag: String) {
        condition.locked {
            flags.insert(flag)
            condition.broadcast()
        }
    }

    func waitOpen(_ flag: String) {
        condition.locked {
            while !flags.contains(flag) {
                if !condition.wait(milliseconds: 10_000) { return }
            }
        }
    }
}

/// A decoder that decodes nothing; its identity is what the tests look at.
private final class FakeDecoder: ImageDecoding {
    func decode(_ data: [UInt8], options: DecodeOptions, limits: DecodeLimits) throws(LoaderError) -> DecodedImage {
        throw .unsupported
    }
}

final class WorkerPoolTests: XCTestCase {
    func testLowerPriorityValueRunsFirstAndEqualOnesInOrder() throws {
        let recorder = Recorder()
        let pool = try XCTUnwrap(WorkerPool(threads: 1) { FakeDecoder() })
        defer { pool.shutdown() }
        // Hold the only worker so every later job is queued before any runs.
        pool.submit(priority: 0) { _ in
            recorder.record("gate")
            recorder.waitOpen("go")
        }
        XCTAssertTrue(recorder.wait { $0.contains("gate") })
        for (name, priority) in [("p5", 5), ("p1a", 1), ("p3", 3), ("p1b", 1), ("p0", 0), ("p1c", 1)] {
            pool.submit(priority: priority) { _ in recorder.record(name) }
        }
        XCTAssertEqual(pool.queuedCount, 6)
        recorder.open("go")
        XCTAssertTrue(recorder.wait { $0.count == 7 })
        XCTAssertEqual(recorder.recorded, ["gate", "p0", "p1a", "p1b", "p1c", "p3", "p5"])
    }

    func testShutdownDropsQueuedJobsAndWaitsForRunningOnes() throws {
        let recorder = Recorder()
        let pool = try XCTUnwrap(WorkerPool(threads: 1) { FakeDecoder() })
        pool.submit(priority: 0) { _ in
            recorder.record("running")
            recorder.waitOpen("go")
            recorder.record("finished")
        }
        XCTAssertTrue(recorder.wait { $0.contains("running") })
        for index in 0..<3 {
            XCTAssertTrue(pool.submit(priority: 0) { _ in recorder.record("queued \(index)") })
        }
        pool.beginShutdown()
        XCTAssertFalse(pool.submit(priority: 0) { _ in recorder.record("late") })
        recorder.open("go")
        pool.shutdown()
        // shutdown returned, so the running job has finished and nothing else ran.
        XCTAssertEqual(recorder.recorded, ["running", "finished"])
        pool.shutdown()  // idempotent
        XCTAssertEqual(pool.queuedCount, 0)
    }

    func testEachWorkerHasItsOwnDecoder() throws {
        let threads = 3
        let recorder = Recorder()
        let pool = try XCTUnwrap(WorkerPool(threads: threads) { FakeDecoder() })
        defer { pool.shutdown() }
        // Each job waits until `threads` jobs run at once, so every worker takes one.
        for _ in 0..<threads {
            pool.submit(priority: 0) { decoder in
                let identity = ObjectIdentifier(decoder as AnyObject)
                recorder.record("\(identity)")
                _ = recorder.wait { $0.count >= threads }
            }
        }
        XCTAssertTrue(recorder.wait { $0.count == threads })
        XCTAssertEqual(Set(recorder.recorded).count, threads, "each worker passes its own decoder")

        // Later jobs on the same pool reuse those same decoders: none is made per job.
        let before = Set(recorder.recorded)
        let more = Recorder()
        for _ in 0..<20 {
            pool.submit(priority: 0) { decoder in more.record("\(ObjectIdentifier(decoder as AnyObject))") }
        }
        XCTAssertTrue(more.wait { $0.count == 20 })
        XCTAssertTrue(Set(more.recorded).isSubset(of: before))
    }

    func testFactoryRunsOncePerThread() throws {
        let made = Recorder()
        let pool = try XCTUnwrap(WorkerPool(threads: 2) {
            made.record("decoder")
            return FakeDecoder()
        })
        XCTAssertTrue(made.wait { $0.count == 2 })
        pool.shutdown()
        XCTAssertEqual(made.recorded.count, 2)
    }
}
#endif
