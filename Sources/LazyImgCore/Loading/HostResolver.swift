import Glibc

/// Looks host names up with getaddrinfo on threads of its own, so the network thread
/// never waits for one.
///
/// libcurl 7.88 resolves on a thread per transfer, and joins that thread on the
/// network thread when a transfer whose name is still resolving times out, is removed
/// or cleaned up: one name that took 20 s froze every row. Here a lookup that hangs
/// holds only its own thread, for as long as getaddrinfo takes; `stop` never waits
/// for it (its threads are detached) and its late answer goes nowhere.
///
/// At most `maxLookups` run at once, so a feed of names that hang cannot pile up
/// threads; further names wait for a free one, in the order asked.
final class HostResolver: Sendable {
    /// Called on a lookup thread with a name and its addresses as CURLOPT_RESOLVE
    /// writes them ("192.0.2.1", "[2001:db8::1]"), or nil when it does not resolve.
    typealias Answer = @Sendable (_ name: String, _ addresses: [String]?) -> Void

    /// Addresses kept per name: enough for every family and a few fallbacks.
    static let maxAddresses = 16

    private struct State {
        /// Names waiting for a thread, oldest first.
        var waiting: [String] = []
        var running = 0
        var isStopped = false
    }

    private let state = Locked(State())
    private let maxLookups: Int
    private let answer: Answer

    init(maxLookups: Int, answer: @escaping Answer) {
        self.maxLookups = max(1, maxLookups)
        self.answer = answer
    }

    /// Starts looking `name` up, or queues it while `maxLookups` are running. The
    /// caller asks once per name and waits for its answer.
    func lookUp(_ name: String) {
        let mayRun = state.withLock { s -> Bool in
            guard !s.isStopped else { return false }
            guard s.running < maxLookups else {
                s.waiting.append(name)
                return false
            }
            s.running += 1
            return true
        }
        guard mayRun else { return }
        guard let thread = NativeThread(name: "lazyimg-dns", { [self] in run(from: name) }) else {
            state.withLock { $0.running -= 1 }
            answer(name, nil)
            return
        }
        thread.detach()
    }

    /// Forgets a name still waiting for a thread: nobody wants its answer any more.
    /// True when it was waiting, so no answer comes; false when its lookup runs (its
    /// answer still comes).
    func withdraw(_ name: String) -> Bool {
        state.withLock { s in
            guard let index = s.waiting.firstIndex(of: name) else { return false }
            s.waiting.remove(at: index)
            return true
        }
    }

    /// No answers after this returns, and no new lookups. Never waits: a lookup that
    /// is running ends on its own thread whenever getaddrinfo returns.
    func stop() {
        state.withLock { s in
            s.isStopped = true
            s.waiting.removeAll()
        }
    }

    /// A lookup thread: this name, then whatever waits, until nothing does.
    private func run(from first: String) {
        var name = first
        while true {
            let addresses = Self.addresses(of: name)
            // Checked again under the lock by the command queue, which drops what
            // arrives after the network thread stopped.
            if !state.withLock({ $0.isStopped }) { answer(name, addresses) }
            let next = state.withLock { s -> String? in
                guard !s.isStopped, !s.waiting.isEmpty else {
                    s.running -= 1
                    return nil
                }
                return s.waiting.removeFirst()
            }
            guard let next else { return }
            name = next
        }
    }

    /// getaddrinfo's stream addresses for `name`, each once, at most `maxAddresses`.
    static func addresses(of name: String) -> [String]? {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(name, nil, &hints, &list) == 0, let list else { return nil }
        defer { freeaddrinfo(list) }
        var found: [String] = []
        var node: UnsafeMutablePointer<addrinfo>? = list
        while let entry = node, found.count < maxAddresses {
            node = entry.pointee.ai_next
            guard let text = text(of: entry.pointee), !found.contains(text) else { continue }
            found.append(text)
        }
        return found.isEmpty ? nil : found
    }

    /// An IPv4 address as dotted decimal, an IPv6 one in brackets; nil for other
    /// families or a truncated address.
    private static func text(of entry: addrinfo) -> String? {
        guard let address = entry.ai_addr else { return nil }
        let raw = UnsafeRawPointer(address)
        switch entry.ai_family {
        case AF_INET where Int(entry.ai_addrlen) >= MemoryLayout<sockaddr_in>.size:
            var ipv4 = raw.loadUnaligned(as: sockaddr_in.self).sin_addr
            return format(AF_INET, &ipv4)
        case AF_INET6 where Int(entry.ai_addrlen) >= MemoryLayout<sockaddr_in6>.size:
            var ipv6 = raw.loadUnaligned(as: sockaddr_in6.self).sin6_addr
            return format(AF_INET6, &ipv6).map { "[" + $0 + "]" }
        default:
            return nil
        }
    }

    private static func format(_ family: Int32, _ address: UnsafeRawPointer) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        return buffer.withUnsafeMutableBufferPointer { out in
            inet_ntop(family, address, out.baseAddress, socklen_t(out.count)).map { String(cString: $0) }
        }
    }
}
