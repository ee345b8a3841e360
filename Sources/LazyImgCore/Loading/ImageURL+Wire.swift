extension ImageURL {
    /// The URL as the request line carries it: bytes past ASCII in the query as %xx.
    /// libcurl 7.88 encodes them in the path (lower-case hex, as here) but sends the
    /// query as given, raw bytes a server may misread or refuse. The host stays as
    /// it is (libcurl converts an IDN name itself); what the host gave is still the
    /// URL everywhere else: keys, events, the disk cache.
    var onTheWire: ImageURL {
        let bytes = bytes
        guard let query = bytes.firstIndex(of: UInt8(ascii: "?")), bytes[query...].contains(where: { $0 >= 0x80 })
        else { return self }
        let hex = Array("0123456789abcdef".utf8)
        var wire = Array(bytes[..<query])
        for byte in bytes[query...] {
            if byte < 0x80 {
                wire.append(byte)
            } else {
                wire += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            }
        }
        return ImageURL(bytes: wire)
    }
}
