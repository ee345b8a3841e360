import Foundation

/// A one-connection https server on 127.0.0.1, for tests of certificate checks:
/// python3's ssl module with a self-signed certificate for 127.0.0.1 that the openssl
/// command makes at start. It reports the handshake's outcome, so a test knows a
/// refusal was the certificate and not a missing server, then reads one request and
/// sends `response` as given. Call `stop()` when done.
public final class TLSTestServer {
    public static let okResponse = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc"

    private static let script = """
        import socket, ssl, sys
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[1], sys.argv[2])
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        listener.settimeout(20)
        print(listener.getsockname()[1], flush=True)
        connection, _ = listener.accept()
        try:
            tls = context.wrap_socket(connection, server_side=True)
            print("handshake-ok", flush=True)
            tls.recv(65536)
            tls.sendall(sys.argv[3].encode())
            tls.close()
        except (ssl.SSLError, OSError) as error:
            print("handshake-failed", flush=True)
        """

    public let port: Int
    /// The certificate, in PEM: a CA file that trusts this server.
    public let certificatePath: String
    private let directory: URL
    private let process: Process
    private let lines: LineReader

    /// nil when openssl or python3 is missing (tests then skip).
    public init?(response: String = TLSTestServer.okResponse) throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("lazyimg-tls-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        guard let certificate = SelfSignedCertificate(in: directory) else {
            try? FileManager.default.removeItem(at: directory)
            return nil
        }
        certificatePath = certificate.certificatePath
        let key = certificate.keyPath
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", Self.script, certificatePath, key, response]
        let output = Pipe()
        process.standardOutput = output
        lines = LineReader(output.fileHandleForReading)
        guard (try? process.run()) != nil, let port = lines.next().flatMap(Int.init) else {
            try? FileManager.default.removeItem(at: directory)
            return nil
        }
        self.port = port
    }

    public func url(_ path: String) -> String {
        "https://127.0.0.1:\(port)\(path)"
    }

    /// Blocks until the server reports the handshake: "handshake-ok" or "handshake-failed".
    public func handshakeOutcome() -> String? {
        lines.next()
    }

    public func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }

}

/// Reads a child's stdout line by line, blocking until each line arrives.
private final class LineReader {
    private let handle: FileHandle
    private var buffer = Data()

    init(_ handle: FileHandle) { self.handle = handle }

    func next() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                return line
            }
            let chunk = handle.availableData
            if chunk.isEmpty { return nil }
            buffer.append(chunk)
        }
    }
}
