import Glibc
import LazyImgCore

/// The benchmark's image site: a small HTTP/1.1 server on 127.0.0.1 that answers
/// `GET /r<run>/<row>.jpg` with one of its JPEGs after a fixed delay (the round trip
/// and server time of a real site), sending bodies through one shared bandwidth cap.
/// As CDNs and nginx do, it serves byte ranges (`Accept-Ranges: bytes`, a strong ETag
/// per image, 206 for `Range` when If-Range matches), except in the runs told not to
/// (`refuseRanges`), whose responses say nothing of ranges and whose Range is ignored.
///
/// One thread accepts; one thread per connection serves requests in order
/// (keep-alive). A held or paced response notices a client that hangs up (a
/// cancelled transfer) and stops there. It counts, per run, the requests for each row
/// and the body bytes sent. Bounded: at most `maxConnections` at once, idle
/// connections close after 5 s, and `stop()` ends every thread.
public final class SiteServer: @unchecked Sendable {
    // @unchecked: the mutable fields are guarded by `lock`.

    /// What one run asked of the site.
    public struct RunCounters: Sendable {
        public var requestsByRow: [Int: Int] = [:]
        public var bytesSent = 0
        /// Each request's row and monotonic arrival time, in arrival order.
        public var arrivals: [(row: Int, nanoseconds: Int64)] = []
        /// Requests answered 206 with the rest of a body.
        public var ranged = 0
        public var requests: Int { requestsByRow.values.reduce(0, +) }
        /// The run's site does not serve byte ranges.
        var refusesRanges = false
    }

    /// One GET as the site reads it.
    private struct Request {
        var path: String
        var range: String?
        var ifRange: String?
    }

    public let port: Int
    public let delayMilliseconds: Int
    public static let maxConnections = 256
    private static let chunkBytes = 16 << 10

    private let images: [[UInt8]]
    private let pacer: LinkPacer
    private let listener: Int32
    private let lock = Condition()
    private var counters: [Int: RunCounters] = [:]
    private var connections: Set<Int32> = []
    private var threads: [NativeThread] = []
    private var acceptThread: NativeThread?
    private var stopping = false

    public init(images: [[UInt8]], delayMilliseconds: Int, bytesPerSecond: Int) throws(BenchError) {
        guard !images.isEmpty else { throw .setup("the site has no images") }
        self.images = images
        self.delayMilliseconds = delayMilliseconds
        pacer = LinkPacer(bytesPerSecond: bytesPerSecond)
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socketFD >= 0 else { throw .setup("socket failed: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")  // loopback only
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socketFD, $0, length) == 0 && listen(socketFD, 128) == 0 && getsockname(socketFD, $0, &length) == 0
            }
        }
        guard bound else {
            close(socketFD)
            throw .setup("bind/listen on 127.0.0.1 failed: errno \(errno)")
        }
        listener = socketFD
        port = Int(UInt16(bigEndian: address.sin_port))
        guard let thread = NativeThread(name: "site-accept", { self.acceptLoop() }) else {
            close(socketFD)
            throw .setup("cannot start the server thread")
        }
        lock.locked { acceptThread = thread }
    }

    public func url(run: Int, row: Int) -> String {
        "http://127.0.0.1:\(port)/r\(run)/\(row).jpg"
    }

    public func counters(run: Int) -> RunCounters {
        lock.locked { counters[run] ?? RunCounters() }
    }

    /// Run `run`'s responses say nothing of ranges, and its Range requests get the
    /// whole body: a site as lazyimg saw every site before it resumed downloads.
    public func refuseRanges(run: Int) {
        lock.locked { counters[run, default: RunCounters()].refusesRanges = true }
    }

    /// Closes the listener and every connection and joins every thread. Idempotent.
    public func stop() {
        let accepter: NativeThread? = lock.locked {
            guard !stopping else { return nil }
            stopping = true
            shutdown(listener, Int32(SHUT_RDWR))
            for connection in connections { shutdown(connection, Int32(SHUT_RDWR)) }
            return acceptThread
        }
        guard let accepter else { return }
        accepter.join()
        for thread in lock.locked({ threads }) { thread.join() }
        close(listener)
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            let accepted: Bool = lock.locked {
                guard !stopping, connections.count < Self.maxConnections,
                      let thread = NativeThread(name: "site-conn", { self.serve(connection) })
                else { return false }
                connections.insert(connection)
                threads.append(thread)
                return true
            }
            if !accepted { close(connection) }
            if lock.locked({ stopping }) { return }
        }
    }

    private func serve(_ connection: Int32) {
        var idle = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &idle, socklen_t(MemoryLayout<timeval>.size))
        // The head and the body go out in separate sends: without TCP_NODELAY, Nagle holds
        // the body of a response on a reused connection until the client's delayed ACK of
        // the head, 40 ms later on Linux.
        var noDelay: Int32 = 1
        setsockopt(connection, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        var pending: [UInt8] = []
        while let request = readRequest(connection, &pending), respond(connection, to: request) {}
        lock.locked {
            // Closed under the lock, so stop() never shuts down a recycled descriptor.
            connections.remove(connection)
            close(connection)
        }
    }

    /// The next GET; nil when the client closed, idled out or sent junk.
    private func readRequest(_ connection: Int32, _ pending: inout [UInt8]) -> Request? {
        let terminator: [UInt8] = Array("\r\n\r\n".utf8)
        var chunk = [UInt8](repeating: 0, count: 4096)
        while pending.firstRange(of: terminator) == nil {
            guard pending.count < 16 << 10 else { return nil }
            let count = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            pending.append(contentsOf: chunk[..<count])
        }
        guard let end = pending.firstRange(of: terminator) else { return nil }
        let head = String(decoding: pending[..<end.lowerBound], as: UTF8.self)
        pending.removeSubrange(..<end.upperBound)
        let lines = head.split(separator: "\r\n")
        let parts = lines.first?.split(separator: " ", maxSplits: 2) ?? []
        guard parts.count == 3, parts[0] == "GET" else { return nil }
        var request = Request(path: String(parts[1]))
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let value = String(line[line.index(after: colon)...].drop { $0 == " " })
            switch line[..<colon].lowercased() {
            case "range": request.range = value
            case "if-range": request.ifRange = value
            default: break
            }
        }
        return request
    }

    /// The bytes `bytes=<first>-[<last>]` asks of a body of `count` bytes, when
    /// If-Range (if any) names its validator; nil otherwise.
    private static func askedRange(_ request: Request, of count: Int, validator: String) -> ClosedRange<Int>? {
        guard let range = request.range, range.hasPrefix("bytes="), request.ifRange.map({ $0 == validator }) ?? true
        else { return nil }
        let bounds = range.dropFirst(6).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Int(bounds[0]), first < count else { return nil }
        let last = bounds[1].isEmpty ? count - 1 : Int(bounds[1]).map { min($0, count - 1) }
        guard let last, first <= last else { return nil }
        return first...last
    }

    /// "/r<run>/<row>.jpg" as numbers.
    private static func parse(_ path: String) -> (run: Int, row: Int)? {
        let parts = path.split(separator: "/")
        guard parts.count == 2, parts[0].hasPrefix("r"), parts[1].hasSuffix(".jpg"),
              let run = Int(parts[0].dropFirst()), let row = Int(parts[1].dropLast(4)), row >= 0
        else { return nil }
        return (run, row)
    }

    /// False when the connection must close.
    private func respond(_ connection: Int32, to request: Request) -> Bool {
        guard let (run, row) = Self.parse(request.path) else {
            let head = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"
            return send(connection, Array(head.utf8)[...])
        }
        let servesRanges = lock.locked {
            counters[run, default: RunCounters()].requestsByRow[row, default: 0] += 1
            counters[run, default: RunCounters()].arrivals.append((row, monotonicNanoseconds()))
            return !counters[run, default: RunCounters()].refusesRanges
        }
        guard waitForHangUp(connection, until: monotonicNanoseconds() + Int64(delayMilliseconds) * 1_000_000) else {
            return false
        }
        let image = images[row % images.count]
        let validator = "\"\(row % images.count)\""
        var body = image[...]
        let type = image.starts(with: [0x89, 0x50, 0x4E, 0x47]) ? "image/png" : "image/jpeg"
        var head = "HTTP/1.1 200 OK\r\nContent-Type: \(type)\r\n"
        if servesRanges {
            head += "Accept-Ranges: bytes\r\nETag: \(validator)\r\n"
            if let asked = Self.askedRange(request, of: image.count, validator: validator) {
                head = "HTTP/1.1 206 Partial Content" + head.dropFirst("HTTP/1.1 200 OK".count)
                    + "Content-Range: bytes \(asked.lowerBound)-\(asked.upperBound)/\(image.count)\r\n"
                body = image[asked]
                lock.locked { counters[run, default: RunCounters()].ranged += 1 }
            }
        }
        head += "Content-Length: \(body.count)\r\n\r\n"
        guard send(connection, Array(head.utf8)[...]) else { return false }
        var offset = body.startIndex
        while offset < body.endIndex {
            let piece = body[offset..<min(offset + Self.chunkBytes, body.endIndex)]
            guard waitForHangUp(connection, until: pacer.book(piece.count)), send(connection, piece) else { return false }
            lock.locked { counters[run, default: RunCounters()].bytesSent += piece.count }
            offset += piece.count
        }
        return true
    }

    /// Waits until `deadline` (monotonic ns); false when the client hung up meanwhile
    /// or the server stops.
    private func waitForHangUp(_ connection: Int32, until deadline: Int64) -> Bool {
        let readHangUp: Int16 = 0x2000  // POLLRDHUP (Linux): the client closed its end
        var fd = pollfd(fd: connection, events: readHangUp, revents: 0)
        while true {
            let remaining = deadline - monotonicNanoseconds()
            guard remaining > 0 else { break }
            let ready = poll(&fd, 1, Int32((remaining + 999_999) / 1_000_000))
            if ready < 0 && errno == EINTR { continue }
            if ready > 0 { return false }
            if ready == 0 { break }
            return false
        }
        return !lock.locked { stopping }
    }

    private func send(_ connection: Int32, _ bytes: ArraySlice<UInt8>) -> Bool {
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }
}
