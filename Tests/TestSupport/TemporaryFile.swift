import Glibc

/// A file with given bytes in /tmp, for file:// tests. Remove it in tearDown.
public struct TemporaryFile: Sendable {
    public let path: String

    public var url: String { "file://" + path }

    public init(bytes: [UInt8]) throws {
        var template = Array("/tmp/lazyimg-test-XXXXXX".utf8CString)
        let fd = mkstemp(&template)
        guard fd >= 0 else { throw TestSupportError.system(call: "mkstemp", errno: errno) }
        defer { close(fd) }
        path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw TestSupportError.system(call: "write", errno: errno) }
    }

    public func remove() {
        unlink(path)
    }
}
