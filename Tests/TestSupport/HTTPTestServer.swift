import Glibc
import LazyImgCore

/// A small real HTTP/1.1 server on 127.0.0.1 for tests of the network code.
///
/// One thread accepts, one thread per connection serves requests in order (keep-alive
/// by default, GET only, request bodies ignored). Routes are registered by path; the
/// counters and `waitFor…` methods let tests wait on events instead of sleeping.
/// Idle connections close after `idleTimeoutSeconds`. Call `stop()` (in tearDown):
/// it closes everything and joins every thread. Until then the threads keep the
/// server alive, so a forgotten stop leaks a listener rather than crashing a thread
/// that outlived its server.
public final class HTTPTestServer: @unchecked Sendable {
    // @unchecked: every mutable field below is guarded by `lock`.

    /// How a response body is framed on the wire.
    public enum Framing: Sendable {
        /// An honest Content-Length; the connection stays open.
        case contentLength
        /// Transfer-Encoding: chunked, no Content-Length; the connection stays open.
        case chunked
        /// No length at all: the body ends when the server closes the connection.
        case untilClose
        /// Announces this Content-Length whatever the body's size, sends the body,
        /// then closes: larger than the body means "closed mid-body".
        case declaredLength(Int)
    }

    /// How a route that serves byte ranges answers a `Range` request whose
    /// If-Range names its validator (any other If-Range gets the whole body).
    public enum RangeAnswer: Sendable {
        /// 206 with the bytes asked for.
        case honour
        /// 200 with the whole body: a server that says it serves ranges, and does not.
        case ignore
        /// 206 with the bytes asked for, under a Content-Range that says they are
        /// others (`by` bytes further on, of a body `by` bytes longer).
        case misplace(by: Int)
        /// 206 with an honest Content-Range, then `extra` bytes more than it said
        /// (chunked, so nothing on the wire frames them away).
        case overlong(extra: Int)
    }

    private enum Hold {
        case none
        /// Until `release(path)`, the client hangs up, or the server stops.
        case gate
        /// As `gate`, but also ends after this many milliseconds.
        case delay(milliseconds: Int)
    }

    private struct Route {
        var status: Int
        var headers: [String]
        var body: [UInt8]
        var framing: Framing
        var hold: Hold
        /// Sends the head and this many body bytes, then holds the rest until
        /// `release(path)`.
        var stallAfter: Int? = nil
        /// When set, a request whose If-None-Match names it gets 304 and no body.
        var etag: String? = nil
        /// When set, the body depends on this request header's value; a value not
        /// listed (or none) gets 403.
        var bodiesByHeader: (name: String, bodies: [String: [UInt8]])? = nil
        /// When set, these bytes are the whole response, as they are, and the
        /// connection closes after them: for replies that are not HTTP/1.1.
        var raw: [UInt8]? = nil
        /// When set, the body goes out one byte per this many milliseconds.
        var trickleMilliseconds: Int? = nil
        /// When set, the body and Content-Type are chosen by the request's Accept.
        var variants: [(mediaType: String, body: [UInt8])] = []
        /// When set, `Range` requests are answered so, with this If-Range validator.
        var ranges: (answer: RangeAnswer, validator: String)? = nil
        /// When set, a whole-body answer announces the whole body, sends this many
        /// bytes of it, and closes.
        var cutAfter: Int? = nil
        /// When set, a `Range` answer from a later byte than the first sends its head
        /// and holds the body until `release(path)`.
        var holdsRest = false
    }

    public let port: Int
    public let idleTimeoutSeconds = 5

    private let listener: Int32
    private let lock = Condition()
    private var routes: [String: Route] = [:]
    private var releasedPaths: Set<String> = []
    private var hitsByPath: [String: Int] = [:]
    private var recorded: [HTTPTestRequest] = []
    private var accepted = 0
    private var closed = 0
    private var openConnections: Set<Int32> = []
    /// Write ends of the pipes that held responses poll on, to wake them.
    private var holdWakers: Set<Int32> = []
    private var connectionThreads: [NativeThread] = []
    private var acceptThread: NativeThread?
    private var isStopping = false

    public init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw TestSupportError.system(call: "socket", errno: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0  // ephemeral: the kernel picks a free port
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(listener, socketAddress, length) == 0
                    && listen(listener, 64) == 0
                    && getsockname(listener, socketAddress, &length) == 0
            }
        }
        guard bound else {
            let failure = errno
            close(listener)
            throw TestSupportError.system(call: "bind/listen", errno: failure)
        }
        self.listener = listener
        port = Int(UInt16(bigEndian: address.sin_port))
        guard let thread = NativeThread(name: "test-http-accept", { self.acceptLoop() }) else {
            close(listener)
            throw TestSupportError.system(call: "pthread_create", errno: errno)
        }
        lock.locked { acceptThread = thread }
    }

    public func url(_ path: String) -> String {
        "http://127.0.0.1:\(port)\(path.hasPrefix("/") ? "" : "/")\(path)"
    }

    // MARK: Routes

    public func serve(_ path: String, body: [UInt8], status: Int = 200,
                      contentType: String = "application/octet-stream",
                      framing: Framing = .contentLength, headers: [String] = []) {
        addRoute(path, Route(status: status, headers: ["Content-Type: \(contentType)"] + headers,
                             body: body, framing: framing, hold: .none))
    }

    /// Serves `body` with this ETag (and `headers`, such as Cache-Control), answering
    /// 304 Not Modified without a body to a request whose If-None-Match names it.
    public func serveWithETag(_ path: String, body: [UInt8], etag: String, headers: [String] = []) {
        addRoute(path, Route(status: 200, headers: ["Content-Type: application/octet-stream", "ETag: \(etag)"] + headers,
                             body: body, framing: .contentLength, hold: .none, etag: etag))
    }

    /// Negotiates as an image CDN does: the first of `variants` whose media type the
    /// request's Accept names, else the last (the original), with Vary: Accept.
    public func serveNegotiated(_ path: String, variants: [(mediaType: String, body: [UInt8])]) {
        addRoute(path, Route(status: 200, headers: ["Vary: Accept"], body: [], framing: .contentLength, hold: .none,
                             variants: variants))
    }

    /// Serves `body` as a server of byte ranges does: `Accept-Ranges: bytes`, and
    /// the validator as an ETag, or (`lastModified`) as a Last-Modified date with a
    /// Date a minute later. `Range` requests are answered as `ranges` says.
    /// `stallAfter`: sends that many body bytes, then holds the rest until
    /// `release(path)`. `cutAfter`: a whole-body answer announces the whole body,
    /// sends that many bytes, and closes. `holdsRest`: an answer to a Range that
    /// starts past the first byte holds its body until `release(path)`.
    public func serveRanges(_ path: String, body: [UInt8], validator: String, lastModified: Bool = false,
                            ranges: RangeAnswer = .honour, stallAfter: Int? = nil, cutAfter: Int? = nil,
                            headers: [String] = [], gated: Bool = false, holdsRest: Bool = false) {
        let validatorLines = lastModified
            ? ["Last-Modified: \(validator)", "Date: " + Self.minuteLater(validator)] : ["ETag: \(validator)"]
        addRoute(path, Route(status: 200, headers: ["Content-Type: application/octet-stream", "Accept-Ranges: bytes"]
                                + validatorLines + headers,
                             body: body, framing: .contentLength, hold: gated ? .gate : .none, stallAfter: stallAfter,
                             ranges: (ranges, validator), cutAfter: cutAfter, holdsRest: holdsRest))
    }

    /// Holds the whole response for `delayMilliseconds`, or until `release(path)`.
    public func serveSlow(_ path: String, body: [UInt8], delayMilliseconds: Int, status: Int = 200) {
        addRoute(path, Route(status: status, headers: ["Content-Type: application/octet-stream"],
                             body: body, framing: .contentLength, hold: .delay(milliseconds: delayMilliseconds)))
    }

    /// Holds every response on `path` until `release(path)`; `waitForHits` tells when
    /// a request has arrived and is being held.
    public func serveGated(_ path: String, body: [UInt8], status: Int = 200) {
        addRoute(path, Route(status: status, headers: ["Content-Type: application/octet-stream"],
                             body: body, framing: .contentLength, hold: .gate))
    }

    /// Answers each value of the request header `name` with its own body (a server
    /// that answers per token), and any other value, or none, with 403. `gated`: held
    /// as `serveGated` holds.
    public func serveByHeader(_ path: String, _ name: String, bodies: [String: [UInt8]], headers: [String] = [],
                              gated: Bool = false) {
        addRoute(path, Route(status: 200, headers: ["Content-Type: application/octet-stream"] + headers, body: [],
                             framing: .contentLength, hold: gated ? .gate : .none, bodiesByHeader: (name, bodies)))
    }

    /// Announces `body.count` bytes, sends the first `sentBytes`, then closes.
    public func serveClosingMidBody(_ path: String, body: [UInt8], sentBytes: Int) {
        addRoute(path, Route(status: 200, headers: ["Content-Type: application/octet-stream"],
                             body: Array(body.prefix(sentBytes)), framing: .declaredLength(body.count), hold: .none))
    }

    /// Announces and sends `body`, but stops after `sentBytes` until `release(path)`:
    /// a transfer caught part way.
    public func serveStalling(_ path: String, body: [UInt8], sentBytes: Int) {
        addRoute(path, Route(status: 200, headers: ["Content-Type: application/octet-stream"], body: body,
                             framing: .contentLength, hold: .none, stallAfter: sentBytes))
    }

    /// Announces `body` and sends it one byte every `intervalMilliseconds`: a slowloris
    /// server, never silent for long, never done in time.
    public func serveTrickling(_ path: String, body: [UInt8], intervalMilliseconds: Int) {
        addRoute(path, Route(status: 200, headers: ["Content-Type: application/octet-stream"], body: body,
                             framing: .contentLength, hold: .none, trickleMilliseconds: intervalMilliseconds))
    }

    /// Sends exactly `bytes` (status line, headers and body as given, or anything
    /// else), then closes the connection.
    public func serveRaw(_ path: String, _ bytes: [UInt8]) {
        addRoute(path, Route(status: 0, headers: [], body: [], framing: .untilClose, hold: .none, raw: bytes))
    }

    /// Answers with a redirect to `location`, after `delayMilliseconds` when given.
    public func redirect(_ path: String, to location: String, status: Int = 302, delayMilliseconds: Int? = nil) {
        addRoute(path, Route(status: status, headers: ["Location: \(location)"], body: [], framing: .contentLength,
                             hold: delayMilliseconds.map { .delay(milliseconds: $0) } ?? .none))
    }

    /// Lets held responses on `path` go, now and for later requests.
    public func release(_ path: String) {
        lock.locked {
            releasedPaths.insert(path)
            wakeHeldResponses()
        }
    }

    // MARK: Observations

    public func hits(_ path: String) -> Int {
        lock.locked { hitsByPath[path, default: 0] }
    }

    public var totalHits: Int {
        lock.locked { recorded.count }
    }

    public var connectionsAccepted: Int {
        lock.locked { accepted }
    }

    public var connectionsClosed: Int {
        lock.locked { closed }
    }

    /// Every request so far on `path`, oldest first.
    public func requests(_ path: String) -> [HTTPTestRequest] {
        lock.locked { recorded.filter { $0.path == path } }
    }

    /// Waits until `path` was requested `count` times; false on timeout.
    public func waitForHits(_ path: String, count: Int, timeoutMilliseconds: Int) -> Bool {
        waitUntil(timeoutMilliseconds: timeoutMilliseconds) { hitsByPath[path, default: 0] >= count }
    }

    /// Waits until `count` requests arrived, on any paths; false on timeout.
    public func waitForTotalHits(count: Int, timeoutMilliseconds: Int) -> Bool {
        waitUntil(timeoutMilliseconds: timeoutMilliseconds) { recorded.count >= count }
    }

    /// Waits until `count` connections ended (closed by either side); false on timeout.
    public func waitForClosedConnections(count: Int, timeoutMilliseconds: Int) -> Bool {
        waitUntil(timeoutMilliseconds: timeoutMilliseconds) { closed >= count }
    }

    // MARK: Stopping

    /// Closes the listener and every connection, ends held responses and joins all
    /// threads. Idempotent.
    public func stop() {
        let accepter: NativeThread? = lock.locked {
            guard !isStopping else { return nil }
            isStopping = true
            // Wakes accept() (EINVAL) and every blocked recv() (end of stream).
            shutdown(listener, Int32(SHUT_RDWR))
            for connection in openConnections {
                shutdown(connection, Int32(SHUT_RDWR))
            }
            wakeHeldResponses()
            lock.broadcast()
            return acceptThread
        }
        guard let accepter else { return }
        accepter.join()
        // The accept loop adds no thread once it saw isStopping, so the list is final.
        for thread in lock.locked({ connectionThreads }) {
            thread.join()
        }
        close(listener)
    }

    // MARK: Internals

    private func addRoute(_ path: String, _ route: Route) {
        lock.locked { routes[path] = route }
    }

    private func waitUntil(timeoutMilliseconds: Int, _ isDone: () -> Bool) -> Bool {
        let clock = MonotonicClock()
        let deadline = clock.nowMilliseconds + Int64(timeoutMilliseconds)
        return lock.locked {
            while !isDone() {
                let remaining = deadline - clock.nowMilliseconds
                guard remaining > 0 else { return false }
                _ = lock.wait(milliseconds: Int(remaining))
            }
            return true
        }
    }

    /// With `lock` held.
    private func wakeHeldResponses() {
        var byte: UInt8 = 1
        for waker in holdWakers {
            _ = write(waker, &byte, 1)
        }
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                return
            }
            let keepGoing: Bool = lock.locked {
                guard !isStopping else {
                    close(connection)
                    return false
                }
                accepted += 1
                openConnections.insert(connection)
                if let thread = NativeThread(name: "test-http-conn", { self.serve(connection) }) {
                    connectionThreads.append(thread)
                } else {
                    openConnections.remove(connection)
                    close(connection)
                    closed += 1
                }
                lock.broadcast()
                return true
            }
            if !keepGoing { return }
        }
    }

    private func serve(_ connection: Int32) {
        var idle = timeval(tv_sec: idleTimeoutSeconds, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &idle, socklen_t(MemoryLayout<timeval>.size))
        var pending: [UInt8] = []
        while let request = readRequest(connection, &pending) {
            let route: Route? = lock.locked {
                hitsByPath[request.path, default: 0] += 1
                recorded.append(request)
                lock.broadcast()
                return routes[request.path]
            }
            guard respond(connection, to: request, with: route) else { break }
        }
        lock.locked {
            // Closed under the lock, so stop() never shuts down a recycled descriptor.
            openConnections.remove(connection)
            close(connection)
            closed += 1
            lock.broadcast()
        }
    }

    /// Reads up to the end of the next request head; nil when the client closed, went
    /// idle too long, or sent something too big to be a GET.
    private func readRequest(_ connection: Int32, _ pending: inout [UInt8]) -> HTTPTestRequest? {
        let terminator: [UInt8] = Array("\r\n\r\n".utf8)
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            if let end = pending.firstRange(of: terminator) {
                let head = Array(pending[..<end.lowerBound])
                pending.removeSubrange(..<end.upperBound)
                return HTTPTestRequest(head: head)
            }
            guard pending.count < 64 << 10 else { return nil }
            let count = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            pending.append(contentsOf: chunk[..<count])
        }
    }

    /// Sends the response; false when the connection must close afterwards.
    private func respond(_ connection: Int32, to request: HTTPTestRequest, with found: Route?) -> Bool {
        guard var route = found else {
            let notFound = Array("not found\n".utf8)
            let head = "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: \(notFound.count)\r\n\r\n"
            return send(connection, Array(head.utf8) + notFound) && request.wantsKeepAlive
        }
        if let raw = route.raw {
            _ = send(connection, raw)
            return false
        }
        switch route.hold {
        case .none:
            break
        case .gate:
            guard hold(connection, path: request.path, milliseconds: nil) else { return false }
        case .delay(let milliseconds):
            guard hold(connection, path: request.path, milliseconds: milliseconds) else { return false }
        }

        if let (name, bodies) = route.bodiesByHeader {
            if let body = request.header(name).flatMap({ bodies[$0] }) {
                route.body = body
            } else {
                route.status = 403
                route.body = Array("forbidden\n".utf8)
            }
        }
        if let chosen = route.variants.first(where: { request.accepts($0.mediaType) }) ?? route.variants.last {
            route.body = chosen.body
            route.headers.append("Content-Type: \(chosen.mediaType)")
        }
        if let etag = route.etag, request.header("If-None-Match") == etag {
            route.status = 304
            route.body = []
        }
        if let (answer, validator) = route.ranges, route.status == 200, request.header("If-Range") ?? validator == validator,
           let asked = request.header("Range").flatMap({ Self.byteRange($0, of: route.body.count) }) {
            let count = route.body.count
            switch answer {
            case .honour:
                route.headers.append("Content-Range: bytes \(asked.lowerBound)-\(asked.upperBound)/\(count)")
            case .ignore:
                break
            case .misplace(let by):
                route.headers.append("Content-Range: bytes \(asked.lowerBound + by)-\(asked.upperBound + by)/\(count + by)")
            case .overlong:
                route.headers.append("Content-Range: bytes \(asked.lowerBound)-\(asked.upperBound)/\(count)")
                route.framing = .chunked
            }
            if case .ignore = answer {} else {
                route.status = 206
                route.body = Array(route.body[asked])
                if case .overlong(let extra) = answer { route.body += [UInt8](repeating: 0xAB, count: extra) }
                // A stall is for the whole body's answer, a held rest for the rest.
                route.stallAfter = route.holdsRest && asked.lowerBound > 0 ? 0 : nil
            }
        }
        if let cut = route.cutAfter, route.status == 200 {
            route.framing = .declaredLength(route.body.count)
            route.body = Array(route.body.prefix(cut))
        }
        var head = "HTTP/1.1 \(route.status) \(Self.reason(route.status))\r\n"
        var keepAlive = request.wantsKeepAlive
        switch route.framing {
        case .contentLength:
            head += "Content-Length: \(route.body.count)\r\n"
        case .chunked:
            head += "Transfer-Encoding: chunked\r\n"
        case .untilClose:
            keepAlive = false
        case .declaredLength(let declared):
            head += "Content-Length: \(declared)\r\n"
            keepAlive = false
        }
        if !keepAlive { head += "Connection: close\r\n" }
        for line in route.headers { head += line + "\r\n" }
        head += "\r\n"

        var wire = Array(head.utf8)
        if case .chunked = route.framing {
            var offset = 0
            while offset < route.body.count {
                let piece = route.body[offset..<min(offset + 16 << 10, route.body.count)]
                wire += Array((String(piece.count, radix: 16) + "\r\n").utf8) + piece + Array("\r\n".utf8)
                offset += piece.count
            }
            wire += Array("0\r\n\r\n".utf8)
        } else {
            wire += route.body
        }
        if let interval = route.trickleMilliseconds {
            var sent = head.utf8.count
            guard send(connection, Array(wire[..<sent])) else { return false }
            while sent < wire.count {
                guard hold(connection, path: request.path, milliseconds: interval),
                      send(connection, [wire[sent]]) else { return false }
                sent += 1
            }
            return keepAlive
        }
        if let stallAfter = route.stallAfter {
            let split = min(wire.count, head.utf8.count + stallAfter)
            guard send(connection, Array(wire[..<split])), hold(connection, path: request.path, milliseconds: nil)
            else { return false }
            wire = Array(wire[split...])
        }
        return send(connection, wire) && keepAlive
    }

    /// Holds a response until released, `milliseconds` passed (nil = no limit), the
    /// client hung up or the server stops. True when the response should be sent.
    private func hold(_ connection: Int32, path: String, milliseconds: Int?) -> Bool {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return false }
        defer {
            close(ends[0])
            close(ends[1])
        }
        let waiting: Bool = lock.locked {
            guard !isStopping, !releasedPaths.contains(path) else { return false }
            holdWakers.insert(ends[1])
            return true
        }
        defer { lock.locked { _ = holdWakers.remove(ends[1]) } }
        if waiting {
            // POLLRDHUP (0x2000, Linux) reports the client's close while we hold, so a
            // cancelled transfer's connection ends here at once, as it would in real life.
            let readHangUp: Int16 = 0x2000
            var fds = [pollfd(fd: connection, events: readHangUp, revents: 0),
                       pollfd(fd: ends[0], events: Int16(POLLIN), revents: 0)]
            let clock = MonotonicClock()
            let deadline = milliseconds.map { clock.nowMilliseconds + Int64($0) }
            while true {
                let timeout = deadline.map { Int32(max(0, $0 - clock.nowMilliseconds)) } ?? -1
                let ready = poll(&fds, 2, timeout)
                if ready < 0 && errno == EINTR { continue }
                if ready <= 0 { break }  // the delay passed
                if fds[0].revents != 0 { return false }  // the client hung up
                break  // released or stopping; the lock decides below
            }
        }
        return lock.locked { !isStopping }
    }

    private func send(_ connection: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    /// The bytes `bytes=first-[last]` asks of a body of `count` bytes; nil for any
    /// other form, or a first byte past the end.
    private static func byteRange(_ value: String, of count: Int) -> ClosedRange<Int>? {
        guard value.hasPrefix("bytes=") else { return nil }
        let parts = value.dropFirst(6).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let first = Int(parts[0]), first < count else { return nil }
        let last = parts[1].isEmpty ? count - 1 : Int(parts[1]).map { min($0, count - 1) }
        guard let last, first <= last else { return nil }
        return first...last
    }

    /// An HTTP date (as `Date` carries) a minute after `date`, which must be of the
    /// form "Sun, 06 Nov 1994 08:49:37 GMT" with a minute below 59.
    private static func minuteLater(_ date: String) -> String {
        var parts = date.split(separator: " ").map(String.init)
        var clock = parts[4].split(separator: ":").map { Int($0)! }
        clock[1] += 1
        parts[4] = clock.map { $0 < 10 ? "0\($0)" : "\($0)" }.joined(separator: ":")
        return parts.joined(separator: " ")
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 404: "Not Found"
        case 500: "Internal Server Error"
        default: "Status"
        }
    }
}
