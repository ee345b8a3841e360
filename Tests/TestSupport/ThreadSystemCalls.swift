import Glibc

/// The read and write system calls the calling thread made, from the kernel's own
/// count in /proc/thread-self/io (`syscr`, `syscw`): how a test sees that a call
/// makes none, which no clock on a shared machine could show.
public struct ThreadSystemCalls: Equatable, Sendable {
    public var reads: Int
    public var writes: Int

    public init(reads: Int, writes: Int) {
        self.reads = reads
        self.writes = writes
    }

    /// The reads and writes `body` made on this thread. Nil if the counts cannot be
    /// read (no /proc).
    public static func made(by body: () throws -> Void) rethrows -> ThreadSystemCalls? {
        // Each sample is one open, one read and one close; the read counts in the
        // next sample, so the cost of sampling is measured and taken off.
        guard let first = sample(), let second = sample() else { return nil }
        try body()
        guard let third = sample() else { return nil }
        return ThreadSystemCalls(reads: (third.reads - second.reads) - (second.reads - first.reads),
                                 writes: (third.writes - second.writes) - (second.writes - first.writes))
    }

    private static func sample() -> ThreadSystemCalls? {
        let fd = open("/proc/thread-self/io", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        var values: [Substring: Int] = [:]
        for line in String(decoding: buffer[..<count], as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: ":")
            if parts.count == 2 { values[parts[0]] = Int(parts[1].drop { $0 == " " }) }
        }
        guard let reads = values["syscr"], let writes = values["syscw"] else { return nil }
        return ThreadSystemCalls(reads: reads, writes: writes)
    }
}
