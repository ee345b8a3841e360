import Glibc

/// An empty directory in /tmp, for disk cache tests. Remove it in tearDown.
public struct TemporaryDirectory: Sendable {
    public let path: String

    public init() throws {
        var template = Array("/tmp/lazyimg-dir-XXXXXX".utf8CString)
        guard mkdtemp(&template) != nil else { throw TestSupportError.system(call: "mkdtemp", errno: errno) }
        path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Deletes the directory and everything below it.
    public func remove() {
        Self.removeTree(path)
    }

    /// The regular files below the directory with their sizes, paths relative to it.
    public func files() -> [(path: String, size: Int)] {
        var found: [(String, Int)] = []
        Self.walk(path, "") { relative, info in found.append((relative, Int(info.st_size))) }
        return found
    }

    private static func walk(_ root: String, _ relative: String, _ visit: (String, stat) -> Void) {
        guard let dir = opendir(relative.isEmpty ? root : root + "/" + relative) else { return }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
            }
            guard name != ".", name != ".." else { continue }
            let child = relative.isEmpty ? name : relative + "/" + name
            var info = stat()
            guard lstat(root + "/" + child, &info) == 0 else { continue }
            if info.st_mode & S_IFMT == S_IFDIR { walk(root, child, visit) } else { visit(child, info) }
        }
    }

    private static func removeTree(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        if info.st_mode & S_IFMT == S_IFDIR {
            if let dir = opendir(path) {
                var names: [String] = []
                while let entry = readdir(dir) {
                    names.append(withUnsafePointer(to: &entry.pointee.d_name) {
                        String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
                    })
                }
                closedir(dir)
                for name in names where name != "." && name != ".." { removeTree(path + "/" + name) }
            }
            rmdir(path)
        } else {
            unlink(path)
        }
    }
}
