extension DataRequest {
    /// Whether a host-configured "Name: value" line may be sent: one line
    /// (`isSingleHeaderLine`), a name that is an HTTP token (RFC 9110 5.6.2), and not
    /// `Host`. Host is refused because the URL names the server: a Host of its own
    /// would send the request (and its scoped headers) to another site's virtual host
    /// behind the origin the headers were scoped to.
    public static func isCustomHeader(_ line: String) -> Bool {
        let bytes = Array(line.utf8)
        guard isSingleHeaderLine(line), let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0 else {
            return false
        }
        let name = bytes[..<colon]
        guard name.allSatisfy(isTokenByte) else { return false }
        return name.map { $0 | 0x20 } != Array("host".utf8)
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "A")...UInt8(ascii: "Z"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
