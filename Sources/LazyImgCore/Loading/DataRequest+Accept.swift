extension DataRequest {
    /// A hop's header lines with `Accept: accept` added, unless the host's own Accept
    /// is among them (the host's replaces ours wherever the policy sends it).
    func withAccept(_ lines: [String]) -> [String] {
        guard let accept, !lines.contains(where: Self.isAccept) else { return lines }
        return lines + ["Accept: \(accept)"]
    }

    private static func isAccept(_ line: String) -> Bool {
        let name = line.utf8.prefix { $0 != UInt8(ascii: ":") }
        return name.map { $0 | 0x20 }.elementsEqual("accept".utf8)
    }
}
