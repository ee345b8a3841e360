import Glibc

/// This process's resident memory and open file descriptors, for tests that check a
/// piece of code gives back what it takes. Other threads of the process count too.
public enum ProcessResources {
    /// Set by `make tsan` (LAZYIMG_TSAN=1): memory figures then describe the sanitizer's
    /// allocator and shadow memory, not the code under test.
    public static var underThreadSanitizer: Bool { getenv("LAZYIMG_TSAN") != nil }

    /// Resident memory now (VmRSS), in bytes; nil when /proc is unreadable.
    public static var residentBytes: Int? { statusField("VmRSS:") }

    /// The most resident memory the process has had (VmHWM), in bytes.
    public static var peakResidentBytes: Int? { statusField("VmHWM:") }

    /// Open file descriptors (entries of /proc/self/fd, less the one listing them).
    public static var openFileDescriptors: Int? {
        guard let directory = opendir("/proc/self/fd") else { return nil }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { count += 1 }
        }
        return count - 1
    }

    /// Runs `body` and returns its result with how far it raised resident memory at
    /// its peak, in bytes. Linux keeps a high-water mark (VmHWM); writing 5 to
    /// /proc/self/clear_refs resets it to the current size. Nil growth when the kernel
    /// offers no reset.
    public static func measurePeakGrowth<T>(_ body: () throws -> T) rethrows -> (result: T, growth: Int?) {
        guard resetPeak(), let before = residentBytes else { return (try body(), nil) }
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
