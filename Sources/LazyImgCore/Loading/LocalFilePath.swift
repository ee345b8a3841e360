/// The path a `file://` URL names, as bytes for `open`: "file://" or
/// "file://localhost", then an absolute path whose %XX escapes are decoded; a query
/// or fragment is not part of it. nil for anything else (another host, a bad
/// escape, an escaped NUL), which the loader reports as a bad URL.
enum LocalFilePath {
    static func path(of url: ImageURL) -> [UInt8]? {
        guard URLCheck.isFileURL(url) else { return nil }
        var rest = url.bytes.dropFirst("file://".utf8.count)
        if let slash = rest.firstIndex(of: UInt8(ascii: "/")) {
            let host = rest[..<slash].map { $0 | 0x20 }
            guard host.isEmpty || host == Array("localhost".utf8) else { return nil }
            rest = rest[slash...]
        } else {
            return nil
        }
        let end = rest.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? rest.endIndex
        return percentDecoded(rest[..<end])
    }

    private static func percentDecoded(_ bytes: ArraySlice<UInt8>) -> [UInt8]? {
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            var byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard bytes.endIndex - index > 2,
                      let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) else { return nil }
                byte = high << 4 | low
                index += 2
            }
            guard byte != 0 else { return nil }
            decoded.append(byte)
            index += 1
        }
        return decoded
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
