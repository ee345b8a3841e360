import Glibc

/// Whole-file reads and writes on plain descriptors (no Foundation), each retrying
/// what EINTR interrupts. (`DiskCacheDirectory` opens the files.)
enum DiskCacheFiles {
    /// Reads the whole open file, refusing any larger than `maxBytes`.
    static func readAll(_ fd: Int32, maxBytes: Int) -> (bytes: [UInt8], inode: UInt64)? {
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_size >= 0, Int(info.st_size) <= maxBytes else { return nil }
        let size = Int(info.st_size)
        var bytes = [UInt8](repeating: 0, count: size)
        var done = 0
        let ok = bytes.withUnsafeMutableBytes { buffer -> Bool in
            while done < size {
                let n = pread(fd, buffer.baseAddress! + done, size - done, off_t(done))
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return false }
                done += n
            }
            return true
        }
        return ok ? (bytes, UInt64(info.st_ino)) : nil
    }

    /// Writes all of `bytes` from offset `at`; false on any error (disk full included).
    static func writeAll(_ fd: Int32, _ bytes: [UInt8], at offset: Int = 0) -> Bool {
        bytes.withUnsafeBytes { buffer -> Bool in
            var done = 0
            while done < buffer.count {
                let n = pwrite(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done))
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return false }
                done += n
            }
            return true
        }
    }
}
