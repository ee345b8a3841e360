#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_4 // ThreadSanitizer group 4 (see the Makefile's tsan)
import CLazyImgSupport
import Glibc
import XCTest
@testable import LazyImgCore

/// What a host's own loop relies on: the event fd never wakes it for an event its
/// dispatch cannot see, and the library's threads leave the host's signals to it.
final class HostWakeTests: XCTestCase {
    /// A host polls the fd, then dispatches once: the fd was readable, so the
    /// lock-free check its dispatch makes first must already see the event. The fd
    /// was once signalled before the event was queued, and a host woken in between
    /// dispatched nothing (the Python binding's wait() saw it).
    func testTheFDIsReadableOnlyOnceTheDispatchCanSeeTheEvent() throws {
        let queue = try XCTUnwrap(EventQueue(withFD: true))
        let fd = queue.armedFD()
        let rounds = 20_000
        let pusher = try XCTUnwrap(NativeThread(name: "test-pusher") {
            for round in 0..<rounds {
                // One event at a time: the host is asleep in poll() when it comes.
                while queue.mayHaveEvents { sched_yield() }
                queue.push(LoaderEvent(ticket: UInt64(round + 1), row: round, url: ImageURL(""),
                                       outcome: .failed(.cancelled), httpStatus: 0))
            }
        })
        var missed = 0
        var taken = 0
        while taken < rounds {
            var pollFD = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pollFD, 1, 10_000) == 1 else { return XCTFail("no wake-up after \(taken) events") }
            if !queue.mayHaveEvents { missed += 1 }
            taken += queue.take(max: 0).count
        }
        pusher.join()
        XCTAssertEqual(missed, 0, "woken by the fd with no event visible to dispatch")
    }

    /// A dispatch moves each event out of its batch for the callback: the callback
    /// sees it whole, and once dispatch returns the loader holds none of it (the
    /// image is the host's alone, as a host that released it expects).
    func testADispatchedEventIsWholeInItsCallbackAndHeldByNothingAfter() throws {
        let seen = Locked<[String]>([])
        let kept = Locked<DecodedImage?>(nil)
        let delivery = try XCTUnwrap(EventDelivery(mode: .host) { event in
            seen.withLock { $0.append("\(event.ticket) \(event.row) \(event.url) \(event.message)") }
            if case .image(let image, _) = event.outcome { kept.withLock { $0 = image } }
        })
        weak var image: DecodedImage?
        do {
            let made = DecodedImage(encoded: [1, 2, 3], codec: .png)
            image = made
            delivery.push(contentsOf: [
                LoaderEvent(ticket: 1, row: 4, url: ImageURL("http://a.test/1.png"), outcome: .image(made, .network),
                            httpStatus: 200),
                LoaderEvent(ticket: 2, row: 5, url: ImageURL("http://a.test/2.png"), outcome: .failed(.http(status: 404)),
                            httpStatus: 404, message: "HTTP 404"),
            ])
        }
        XCTAssertEqual(delivery.dispatch(max: 0), 2)
        XCTAssertEqual(seen.withLock { $0 }, ["1 4 http://a.test/1.png ", "2 5 http://a.test/2.png HTTP 404"])
        XCTAssertNotNil(image, "the callback kept it")
        kept.withLock { $0 = nil }
        XCTAssertNil(image, "nothing else holds the delivered image")
        XCTAssertEqual(delivery.delivered.load(ordering: .relaxed), 2)
    }

    /// SIGINT and the other signals a host handles must reach a host thread (a
    /// handler that wakes its poll, Python's KeyboardInterrupt); faults still reach
    /// the thread that caused them.
    func testLibraryThreadsBlockTheHostsSignalsButNotFaults() throws {
        let blocked = Locked<[Int32: Bool]>([:])
        let thread = try XCTUnwrap(NativeThread(name: "test-mask") {
            var mask = sigset_t()
            pthread_sigmask(SIG_SETMASK, nil, &mask)
            for signal in [SIGINT, SIGTERM, SIGCHLD, SIGHUP, SIGUSR1, SIGPIPE, SIGSEGV, SIGBUS, SIGFPE, SIGABRT] {
                let isBlocked = sigismember(&mask, signal) == 1
                blocked.withLock { $0[signal] = isBlocked }
            }
        })
        thread.join()
        let mask = blocked.withLock { $0 }
        for signal in [SIGINT, SIGTERM, SIGCHLD, SIGHUP, SIGUSR1, SIGPIPE] {
            XCTAssertEqual(mask[signal], true, "signal \(signal) not blocked on a library thread")
        }
        for signal in [SIGSEGV, SIGBUS, SIGFPE, SIGABRT] {
            XCTAssertEqual(mask[signal], false, "fault signal \(signal) blocked on a library thread")
        }
        // The creating thread's own mask is left as it was.
        var own = sigset_t()
        pthread_sigmask(SIG_SETMASK, nil, &own)
        XCTAssertEqual(sigismember(&own, SIGINT), 0)
    }
}
#endif
