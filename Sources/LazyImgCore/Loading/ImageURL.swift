import Glibc

/// A URL exactly as the host gave it: its bytes, compared and hashed byte for byte,
/// handed to libcurl and back to the host unchanged.
///
/// Not a Swift `String`: `String(cString:)` repairs bytes that are not UTF-8 into
/// U+FFFD, and `String` equality treats canonically equivalent text (café in NFC and
/// in NFD) as equal, so two different URLs would share one cache entry, one failure
/// record and one download, and libcurl would fetch a URL the host never gave.
public struct ImageURL: Hashable, Sendable, CustomStringConvertible {
    /// The bytes and one terminating NUL, so C calls get a C string without a copy.
    @usableFromInline let terminated: [UInt8]

    /// All of `bytes`. One with a NUL inside (possible from Swift text only) fails
    /// `URLCheck`, so it never reaches a C call that would read it cut short.
    public init(bytes: some Sequence<UInt8>) {
        var terminated = Array(bytes)
        terminated.append(0)
        self.terminated = terminated
    }

    /// No URL, holding no memory of its own (the empty array's shared storage),
    /// for a value that is moved out and must leave something in its place. Its
    /// C string is "".
    static var none: ImageURL { ImageURL(terminated: []) }

    private init(terminated: [UInt8]) {
        self.terminated = terminated
    }

    public init(_ text: String) {
        self.init(bytes: text.utf8)
    }

    /// Copies a C string's bytes as they are.
    public init(cString: UnsafePointer<CChar>) {
        self.init(bytes: UnsafeRawBufferPointer(start: cString, count: strlen(cString)))
    }

    /// The URL's bytes, without the NUL; a view, not a copy (URL checks run per row).
    public var bytes: ArraySlice<UInt8> { terminated.dropLast() }

    /// Calls `body` with the URL as a C string, valid only during the call.
    /// Inlinable, so the ABI's event delivery calls it specialized rather than
    /// through the generic array code.
    @inlinable
    public func withCString<R>(_ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
        try terminated.withUnsafeBufferPointer { buffer in
            try buffer.withMemoryRebound(to: CChar.self) { chars in
                // Empty only for `none`, which holds no NUL either.
                guard let start = chars.baseAddress, !chars.isEmpty else { return try "".withCString(body) }
                return try body(start)
            }
        }
    }

    /// For messages and tests: the bytes as text, invalid UTF-8 shown as U+FFFD.
    public var description: String { String(decoding: bytes, as: UTF8.self) }
}
