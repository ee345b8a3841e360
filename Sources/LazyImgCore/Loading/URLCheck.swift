/// The cheap syntactic check a URL passes before it may be scheduled: an http or
/// https URL (or a file URL, where the loader allows them) with no spaces or control
/// characters, a host for http(s), and a sane length. libcurl has the final word;
/// this catches what is plainly not a URL so the host gets BAD_URL at once instead
/// of an event later.
public enum URLCheck {
    static let maxLength = 8192

    /// - Parameter allowingFiles: whether `file://` URLs load (`allow_file_urls`):
    ///   off by default, since a feed's URL must not read the host's disk.
    public static func isLoadable(_ url: ImageURL, allowingFiles: Bool) -> Bool {
        let bytes = url.bytes
        guard bytes.count <= maxLength, !bytes.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else { return false }
        for scheme in ["http://", "https://"] where hasPrefixIgnoringCase(bytes, scheme) {
            // A host must follow: "http://" alone or "http:///x" is not a URL.
            let rest = bytes.dropFirst(scheme.utf8.count)
            guard let first = rest.first else { return false }
            return first != UInt8(ascii: "/") && first != UInt8(ascii: "?") && first != UInt8(ascii: "#")
        }
        return allowingFiles && isFileURL(url) && bytes.count > "file://".utf8.count
    }

    /// Whether the URL's scheme is file, in any letter case.
    public static func isFileURL(_ url: ImageURL) -> Bool {
        hasPrefixIgnoringCase(url.bytes, "file://")
    }

    static func hasPrefixIgnoringCase(_ bytes: ArraySlice<UInt8>, _ prefix: String) -> Bool {
        var iterator = bytes.makeIterator()
        for expected in prefix.utf8 {
            guard let byte = iterator.next() else { return false }
            // ASCII lower-casing; the prefixes are all lower-case letters and punctuation.
            let lowered = (byte >= 0x41 && byte <= 0x5A) ? byte | 0x20 : byte
            if lowered != expected { return false }
        }
        return true
    }
}
