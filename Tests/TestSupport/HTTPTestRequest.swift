/// One request as the test server saw it, so tests can check what the client sent.
public struct HTTPTestRequest: Sendable {
    public let method: String
    /// The request target as sent, query included.
    public let target: String
    public let version: String
    /// Header lines in arrival order, names as sent.
    public let headers: [(name: String, value: String)]

    /// The route key: the target without its query.
    public var path: String {
        String(target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0])
    }

    /// The first header of that name, compared case-insensitively as HTTP wants.
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }

    /// Whether the Accept header names `mediaType` itself (not through a wildcard), as
    /// image CDNs check before sending a newer format.
    func accepts(_ mediaType: String) -> Bool {
        (header("Accept") ?? "").split(separator: ",").contains {
            ($0.split(separator: ";").first ?? "").filter { $0 != " " && $0 != "\t" }.lowercased() == mediaType
        }
    }

    /// HTTP/1.1 keeps the connection unless told otherwise; HTTP/1.0 closes it.
    var wantsKeepAlive: Bool {
        let connection = header("Connection")?.lowercased()
        return version == "HTTP/1.1" ? connection != "close" : connection == "keep-alive"
    }

    /// Parses the head (request line and headers, without the blank line); nil when
    /// it is not HTTP.
    init?(head: [UInt8]) {
        let lines = String(decoding: head, as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
        let requestLine = lines.first?.split(separator: " ") ?? []
        guard requestLine.count == 3 else { return nil }
        method = String(requestLine[0])
        target = String(requestLine[1])
        version = String(requestLine[2])
        headers = lines.dropFirst().compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let value = line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
            return (String(line[..<colon]), String(value))
        }
    }
}
