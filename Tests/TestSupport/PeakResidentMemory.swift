import Glibc

/// How much a piece of code raises this process's resident memory at its peak.
///
/// Linux keeps a high-water mark of resident memory (VmHWM in /proc/self/status);
/// writing 5 to /proc/self/clear_refs resets it to the current size, so the peak of
/// one call is VmHWM afterwards minus VmRSS before. Other threads of the process count
/// too, so measure with nothing else running.
public enum PeakResidentMemory {
    /// Runs `body` and returns its result with the peak growth in bytes; nil growth
    /// when the kernel does not offer the reset (then nothing can be measured).
    public static func measure<T>(_ body: () throws -> T) rethrows -> (result: T, growth: Int?) {
        guard resetPeak(), let before = statusField("VmRSS:") else { return (try body(), nil) }
        let result = try body()
        guard let peak = statusField("VmHWM:") else { return (result, nil) }
        return (result, max(0, peak - before))
    }

    private static func resetPeak() -> Bool {
        guard let file = fopen("/proc/self/clear_refs", "w") else { return false }
        defer { fclose(file) }
        return fputs("5", file) >= 0 && fflush(file) == 0
    }

    /// A "Name:   1234 kB" line of /proc/self/status, in bytes.
    private static func statusField(_ name: String) -> Int? {
        guard let file = fopen("/proc/self/status", "r") else { return nil }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 512)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(cString: line)
            guard text.hasPrefix(name) else { continue }
            let kilobytes = text.dropFirst(name.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first
                .flatMap { Int($0) }
            return kilobytes.map { $0 * 1024 }
        }
        return nil
    }
}
