import Glibc

/// Reads a whole regular file without ever blocking on what is not one.
///
/// Opened with O_NONBLOCK (so a FIFO or a device returns at once instead of waiting
/// for a writer) and O_NOCTTY, then checked with fstat: only a regular file is read,
/// in chunks, never past `limit` bytes however large it is or grows meanwhile.
enum RegularFile {
    enum Failure: Error, Equatable {
        /// open failed with this errno.
        case cannotOpen(Int32)
        /// A FIFO, directory, device or socket: what it is.
        case notRegular(String)
        case tooLarge
        /// read failed with this errno.
        case cannotRead(Int32)
    }

    /// Bytes read per call; the result grows as they arrive.
    static let chunkBytes = 64 << 10

    /// `path` without its terminating NUL.
    static func read(_ path: [UInt8], limit: Int) -> Result<[UInt8], Failure> {
        let fd = (path + [0]).withUnsafeBytes { bytes -> Int32 in
            guard let name = bytes.baseAddress?.assumingMemoryBound(to: CChar.self) else { return -1 }
            return open(name, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        }
        guard fd >= 0 else { return .failure(.cannotOpen(errno)) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .failure(.cannotRead(errno)) }
        guard info.st_mode & S_IFMT == S_IFREG else { return .failure(.notRegular(kind(of: info.st_mode))) }
        guard info.st_size <= limit else { return .failure(.tooLarge) }
        var body: [UInt8] = []
        body.reserveCapacity(min(Int(info.st_size), chunkBytes))
        var chunk = [UInt8](repeating: 0, count: chunkBytes)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return .failure(.cannotRead(errno)) }
            if count == 0 { return .success(body) }
            // The file may have grown since fstat.
            guard count <= limit - body.count else { return .failure(.tooLarge) }
            body.append(contentsOf: chunk[..<count])
        }
    }

    private static func kind(of mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO"
        case S_IFCHR, S_IFBLK: "a device"
        case S_IFSOCK: "a socket"
        default: "not a regular file"
        }
    }
}
