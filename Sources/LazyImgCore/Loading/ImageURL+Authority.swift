extension ImageURL {
    /// The authority of an http(s) URL, as bytes between "//" and the path: what the
    /// scheduler counts and pauses downloads per host by. nil for other URLs (file://
    /// has no host to protect).
    var httpAuthority: ArraySlice<UInt8>? {
        let bytes = bytes
        let scheme = URLCheck.hasPrefixIgnoringCase(bytes, "http://") ? "http://"
            : URLCheck.hasPrefixIgnoringCase(bytes, "https://") ? "https://" : nil
        guard let scheme else { return nil }
        let authority = bytes.dropFirst(scheme.utf8.count)
        let end = authority.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
            ?? authority.endIndex
        guard authority.startIndex < end else { return nil }
        return bytes[authority.startIndex..<end]
    }
}
