import Foundation
import Glibc

/// An HTTP/2 server over TLS on 127.0.0.1: Debian's nghttpd (package nghttp2-server),
/// serving the files of a directory, with a self-signed certificate for 127.0.0.1 that
/// the openssl command makes at start. Its verbose log names every connection and
/// every request, so a test can count connections and streams. Call `stop()` when done.
public final class HTTP2TestServer {
    public let port: Int
    /// The certificate, in PEM: a CA file that trusts this server.
    public let certificatePath: String
    private let directory: URL
    private let documents: URL
    private let logPath: String
    private let process: Process

    /// nil when openssl or nghttpd is missing or will not start (tests then skip).
    public init?() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("lazyimg-h2-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        documents = directory.appendingPathComponent("docs")
        try FileManager.default.createDirectory(at: documents, withIntermediateDirectories: true)
        logPath = directory.appendingPathComponent("nghttpd.log").path
        process = Process()
        guard let certificate = SelfSignedCertificate(in: directory), let port = Self.freePort() else {
            try? FileManager.default.removeItem(at: directory)
            return nil
        }
        certificatePath = certificate.certificatePath
        let key = certificate.keyPath
        self.port = port
        guard FileManager.default.createFile(atPath: logPath, contents: nil) else {
            try? FileManager.default.removeItem(at: directory)
            return nil
        }
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["nghttpd", "--verbose", "--address=127.0.0.1", "--htdocs=\(documents.path)",
                             String(port), key, certificatePath]
        process.standardOutput = FileHandle(forWritingAtPath: logPath)
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil, Self.waitUntilListening(port: port) else {
            stop()
            return nil
        }
    }

    /// Serves `body` at `path` (a file name under the document root, e.g. "/a.jpg").
    public func serve(_ path: String, body: [UInt8]) throws {
        try Data(body).write(to: documents.appendingPathComponent(String(path.drop { $0 == "/" })))
    }

    public func url(_ path: String) -> String {
        "https://127.0.0.1:\(port)\(path)"
    }

    /// Requests received so far: the connection (nghttpd numbers each "[id=N]"), the
    /// HTTP/2 stream and the path of each.
    public var requests: [(connection: Int, stream: Int, path: String)] {
        log().matches(of: /\[id=([0-9]+)\] \[[ 0-9.]+\] recv \(stream_id=([0-9]+)\) :path: (\S+)/).map {
            (Int($0.output.1) ?? -1, Int($0.output.2) ?? -1, String($0.output.3))
        }
    }

    public func stop() {
        if process.isRunning { process.terminate() }
        if process.processIdentifier > 0 { process.waitUntilExit() }
        try? FileManager.default.removeItem(at: directory)
    }

    private func log() -> String {
        (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    }


    /// A port nothing listens on now (nghttpd cannot report one it chose itself).
    private static func freePort() -> Int? {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return nil }
        defer { close(socket) }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
            }
        }
        return bound ? Int(UInt16(bigEndian: address.sin_port)) : nil
    }

    /// Polls with connect() until the server accepts, for up to five seconds.
    private static func waitUntilListening(port: Int) -> Bool {
        for _ in 0..<500 {
            let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard socket >= 0 else { return false }
            var address = loopback(port: port)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
            close(socket)
            if connected { return true }
            usleep(10_000)
        }
        return false
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}
