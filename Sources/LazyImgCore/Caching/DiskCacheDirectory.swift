import Glibc

/// The cache's directory, opened once, and its shard directories: every file of the
/// cache is reached through their descriptors (`openat`, `unlinkat`, `renameat`),
/// never through a path that a symbolic link could redirect.
///
/// Whoever else can write into the directory (another user, a process of the user's
/// running something hostile) may leave anything under a cache file's name: a
/// symbolic link to a file of the user's, a FIFO that would block `open` for good, a
/// hard link, another user's file. So every file is opened with `O_NOFOLLOW` and
/// `O_NONBLOCK`, and used only when it is then a regular file of this user with one
/// link (`Opened.file`); a shard directory only when it is a real directory of this
/// user. What is not is never written through, read or listed.
///
/// The directory itself: created (with its missing parents) as 0700, it must be
/// owned by the user; its last component may be a symbolic link only if the user
/// owns that link, so a link someone else left in /tmp cannot point the cache into
/// the user's own files.
final class DiskCacheDirectory: Sendable {
    enum Opened {
        case file(Int32, stat)
        case absent
        /// Something other than a regular file of this user with one link (or it
        /// could not be opened): not to be used. `inode` is its inode when known,
        /// so that only this one is removed.
        case unusable(inode: UInt64?)
    }

    let fd: Int32

    init(path: String) throws(LoaderError) {
        guard !path.isEmpty, Self.makeDirectories(path) else { throw .io }
        var link = stat()
        guard lstat(path, &link) == 0, link.st_mode & S_IFMT != S_IFLNK || link.st_uid == geteuid() else { throw .io }
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw .io }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_uid == geteuid() else {
            close(fd)
            throw .io
        }
        self.fd = fd
    }

    deinit {
        close(fd)
    }

    /// Opens `name` in the directory `parent` (this one's `fd`, or a shard's).
    /// `flags` are the access mode and `O_CREAT` / `O_EXCL`.
    static func openFile(_ name: String, in parent: Int32, flags: Int32) -> Opened {
        let fd = openat(parent, name, flags | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            if errno == ENOENT { return .absent }
            return .unusable(inode: inode(of: name, in: parent))
        }
        var info = stat()
        guard fstat(fd, &info) == 0, isOwnRegularFile(info) else {
            close(fd)
            return .unusable(inode: UInt64(info.st_ino))
        }
        return .file(fd, info)
    }

    /// Opens the directory's own file `name` (the lock, the journal) for reading and
    /// writing, creating it when missing. Whatever else is under that name is
    /// removed (the name only: a link's target is never touched) and a new file made.
    func openOwnFile(_ name: String) throws(LoaderError) -> Int32 {
        for _ in 0..<3 {
            switch Self.openFile(name, in: fd, flags: O_RDWR | O_CREAT) {
            case .file(let file, _):
                return file
            case .absent:
                continue
            case .unusable:
                guard unlinkat(fd, name, 0) == 0 || errno == ENOENT else { throw .io }
                // Another process may make it first: then it is opened as theirs.
                if case .file(let file, _) = Self.openFile(name, in: fd, flags: O_RDWR | O_CREAT | O_EXCL) { return file }
            }
        }
        throw .io
    }

    /// Runs `body` with the shard directory `shard` (two hex digits) open, or returns
    /// nil when it is absent or not a directory of this user, or `shard` is not a
    /// shard's name (".." from a crafted name must not open the parent). `create`
    /// makes it when absent, and replaces a link or file found under its name.
    func withShard<T>(_ shard: Substring, create: Bool = false, _ body: (Int32) -> T) -> T? {
        guard shard.utf8.count == 2, shard.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) })
        else { return nil }
        let name = String(shard)
        var shardFD = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        if shardFD < 0 && create {
            if errno == ELOOP || errno == ENOTDIR { unlinkat(fd, name, 0) }
            if mkdirat(fd, name, 0o700) == 0 || errno == EEXIST {
                shardFD = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            }
        }
        guard shardFD >= 0 else { return nil }
        defer { close(shardFD) }
        var info = stat()
        guard fstat(shardFD, &info) == 0, info.st_uid == geteuid() else { return nil }
        return body(shardFD)
    }

    /// The names in an open directory, without "." and ".."; empty when it cannot be read.
    static func list(_ directoryFD: Int32) -> [String] {
        let copy = dup(directoryFD)
        guard copy >= 0 else { return [] }
        guard let dir = fdopendir(copy) else {
            close(copy)
            return []
        }
        defer { closedir(dir) }
        // The copy shares its read position with the original: start from the top.
        rewinddir(dir)
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// What `name` in `parent` is, without following it; nil when absent.
    static func status(of name: String, in parent: Int32) -> stat? {
        var info = stat()
        return fstatat(parent, name, &info, AT_SYMLINK_NOFOLLOW) == 0 ? info : nil
    }

    static func inode(of name: String, in parent: Int32) -> UInt64? {
        status(of: name, in: parent).map { UInt64($0.st_ino) }
    }

    /// A file the cache may use: regular, this user's, and not linked elsewhere too
    /// (a hard link would make a write to it a write to another file).
    static func isOwnRegularFile(_ info: stat) -> Bool {
        info.st_mode & S_IFMT == S_IFREG && info.st_uid == geteuid() && info.st_nlink == 1
    }

    /// Allocated bytes as `du` counts them (`st_blocks` is in 512-byte units).
    static func allocatedBytes(_ info: stat) -> Int {
        Int(info.st_blocks).multipliedClamped(512)
    }

    /// Creates `path` and any missing parents (0700: a cache is the user's alone);
    /// true when it is a directory afterwards.
    private static func makeDirectories(_ path: String) -> Bool {
        var info = stat()
        if stat(path, &info) == 0 { return info.st_mode & S_IFMT == S_IFDIR }
        let parent = path.utf8.lastIndex(of: UInt8(ascii: "/")).map { String(path[..<$0]) } ?? ""
        if !parent.isEmpty && !makeDirectories(parent) { return false }
        return mkdir(path, 0o700) == 0 || errno == EEXIST
    }
}
