import Glibc

/// The few file operations the disk cache needs, on plain descriptors (no Foundation),
/// each retrying what EINTR interrupts.
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

    /// The names in a directory, without "." and ".."; empty when it cannot be read.
    static func list(_ path: String) -> [String] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Size, allocated bytes (`st_blocks`) and modification time (nanoseconds) of a
    /// file; nil when absent.
    static func sizeAndModified(_ path: String) -> (size: Int, allocated: Int, modified: Int64)? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return (Int(info.st_size), Int(info.st_blocks) * 512, Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
    }

    static func inode(_ path: String) -> UInt64? {
        var info = stat()
        return stat(path, &info) == 0 ? UInt64(info.st_ino) : nil
    }

    /// Creates `path` and any missing parents; true when it is a directory afterwards.
    static func makeDirectories(_ path: String) -> Bool {
        var info = stat()
        if stat(path, &info) == 0 { return info.st_mode & S_IFMT == S_IFDIR }
        let parent = path.utf8.lastIndex(of: UInt8(ascii: "/")).map { String(path[..<$0]) } ?? ""
        if !parent.isEmpty && !makeDirectories(parent) { return false }
        return mkdir(path, 0o755) == 0 || errno == EEXIST
    }
}
