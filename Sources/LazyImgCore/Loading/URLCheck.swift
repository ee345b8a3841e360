/// The cheap syntactic check a URL passes before it may be scheduled: an http,
/// https or file URL with no spaces or control characters, a host for http(s),
/// and a sane length. libcurl has the final word; this catches what is plainly
/// not a URL so the host gets BAD_URL at once instead of an event later.
public enum URLCheck {
    static let maxLength = 8192

    public static func isLoadable(_ url: String) -> Bool {
        let bytes = url.utf8
        guard bytes.count <= maxLength, !bytes.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else { return false }
        for scheme in ["http://", "https://"] where hasPrefixIgnoringCase(bytes, scheme) {
            // A host must follow: "http://" alone or "http:///x" is not a URL.
            let rest = bytes.dropFirst(scheme.utf8.count)
            guard let first = rest.first else { return false }
            return first != UInt8(ascii: "/") && first != UInt8(ascii: "?") && first != UInt8(ascii: "#")
        }
        return hasPrefixIgnoringCase(bytes, "file://") && bytes.count > "file://".utf8.count
    }

    static func hasPrefixIgnoringCase(_ bytes: String.UTF8View, _ prefix: String) -> Bool {
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
