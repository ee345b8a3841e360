#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_3 // ThreadSanitizer group 3 (see the Makefile's tsan)
import Foundation
@testable import LazyImgCore
import XCTest

/// The loader's CPU-heavy threads (decoding, reading files) run below the host's
/// threads, so a UI thread that wakes for a frame gets a core at once; the threads
/// the host waits on keep its priority. Each check reads the nice value the kernel
/// reports for the thread doing the work, from inside that work.
final class ThreadPriorityTests: XCTestCase {
    /// The calling thread's nice value, as /proc/thread-self/stat gives it (field 19).
    private static func currentNice() throws -> Int {
        let stat = try String(contentsOfFile: "/proc/thread-self/stat", encoding: .utf8)
        // The command name (field 2) may hold spaces; the fields after it do not.
        let afterName = try XCTUnwrap(stat.range(of: ")", options: .backwards)).upperBound
        let fields = stat[afterName...].split(separator: " ")
        return try XCTUnwrap(Int(fields[16]))
    }

    /// The calling thread's scheduling policy (field 41): 0 SCHED_OTHER, 3 SCHED_BATCH
    /// (Linux's numbers, part of its ABI).
    private static func currentPolicy() throws -> Int {
        let stat = try String(contentsOfFile: "/proc/thread-self/stat", encoding: .utf8)
        let afterName = try XCTUnwrap(stat.range(of: ")", options: .backwards)).upperBound
        let fields = stat[afterName...].split(separator: " ")
        return try XCTUnwrap(Int(fields[38]))
    }

    /// What the test thread's nice becomes in a background thread it makes.
    private static func backgroundNice(below host: Int) -> Int { min(19, host + 10) }

    /// Runs `start`, which hands its work a recorder, and returns the nice value the
    /// work recorded (nil when it never ran within 10 s).
    private func niceOfWork(_ start: (@escaping @Sendable () -> Void) -> Void) -> Int? {
        let done = expectation(description: "the work ran")
        let nice = Locked<Int?>(nil)
        start {
            nice.withLock { $0 = try? Self.currentNice() }
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
        return nice.withLock { $0 }
    }

    func testABackgroundThreadRunsTenNiceStepsBelowTheThreadThatMadeIt() throws {
        let host = try Self.currentNice()
        let nice = niceOfWork { record in
            let thread = NativeThread(name: "test-background", priority: .background, record)
            thread?.join()
        }
        XCTAssertEqual(nice, Self.backgroundNice(below: host))
        XCTAssertEqual(try Self.currentNice(), host, "the maker's own priority is left alone")
    }

    /// A background thread is batch work: woken by the host (a job queued), it does
    /// not preempt the host's thread. Host-priority threads stay as they were.
    func testABackgroundThreadIsScheduledAsBatchWork() throws {
        let policies = Locked<[String: Int]>([:])
        for (name, priority) in [("background", NativeThread.Priority.background), ("host", .host)] {
            NativeThread(name: "test-\(name)", priority: priority) {
                let policy = try? Self.currentPolicy()
                policies.withLock { $0[name] = policy }
            }?.join()
        }
        XCTAssertEqual(policies.withLock { $0 }, ["background": 3, "host": try Self.currentPolicy()])
    }

    /// The scheduler's thread, woken by its naps and by completions, does not
    /// preempt the UI thread mid-frame, and keeps the host's nice value (lowered,
    /// it would hold the front lock the host waits on while preempted).
    func testTheSchedulerThreadIsBatchWorkAtTheHostsNice() throws {
        let host = try Self.currentNice()
        let loader = try ImageLoader(configuration: LoaderConfiguration(), transport: FakeTransport()) { _ in }
        defer { try? loader.shutdown() }
        // Once it has taken a step, the thread has named itself and set its policy.
        loader.loop.waitForStep()
        let stat = try XCTUnwrap(Self.taskStats(named: "lazyimg-sched").first, "no scheduler thread")
        XCTAssertEqual(Int(stat[38]), 3, "SCHED_BATCH")
        XCTAssertEqual(Int(stat[16]), host)
    }

    /// The fields after the command name of each of this process's threads named
    /// `name` (/proc/self/task/TID/stat).
    private static func taskStats(named name: String) throws -> [[Substring]] {
        var stats: [[Substring]] = []
        for task in try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") {
            guard let comm = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8),
                  comm.trimmingCharacters(in: .whitespacesAndNewlines) == name,
                  let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
                  let afterName = stat.range(of: ")", options: .backwards)?.upperBound
            else { continue }
            stats.append(stat[afterName...].split(separator: " "))
        }
        return stats
    }

    func testAHostPriorityThreadKeepsThePriorityOfTheThreadThatMadeIt() throws {
        let host = try Self.currentNice()
        let nice = niceOfWork { record in
            NativeThread(name: "test-host", record)?.join()
        }
        XCTAssertEqual(nice, host)
    }

    func testDecodeWorkersRunInTheBackground() throws {
        let host = try Self.currentNice()
        let pool = try XCTUnwrap(WorkerPool(threads: 2) { ImageDecoder() })
        defer { pool.shutdown() }
        let nice = niceOfWork { record in
            XCTAssertTrue(pool.submit(priority: 0) { _ in record() })
        }
        XCTAssertEqual(nice, Self.backgroundNice(below: host))
    }

    /// The nice value of the thread `loader` completes a fetch of `url` on; shuts
    /// the loader down.
    private func niceOfCompletion(from loader: any DataLoading, url: String) -> Int? {
        defer { loader.shutdown() }
        return niceOfWork { record in
            loader.start(1, DataRequest(url: ImageURL(url))) { _, _ in record() }
        }
    }

    func testTheFileReaderRunsInTheBackground() throws {
        let host = try Self.currentNice()
        let nice = niceOfCompletion(from: try XCTUnwrap(LocalFileLoader()),
                                    url: "file:///nonexistent/lazyimg-priority-test.jpg")
        XCTAssertEqual(nice, Self.backgroundNice(below: host))
    }

    /// The network thread holds the loader's lock as transfers end: lowered, it was
    /// preempted holding it while the UI thread waited (see NativeThread.Priority).
    func testTheNetworkThreadKeepsTheHostsPriority() throws {
        let host = try Self.currentNice()
        // Port 1 on loopback refuses at once; the completion runs on the network thread.
        let nice = niceOfCompletion(from: try XCTUnwrap(CurlDataLoader()), url: "http://127.0.0.1:1/priority.jpg")
        XCTAssertEqual(nice, host)
    }
}
#endif
