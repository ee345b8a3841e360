import Foundation
import LazyImgCore
import XCTest

/// https is verified: libcurl refuses a server whose certificate no trusted authority
/// signed. The server is python3's ssl module with a self-signed certificate made by
/// the openssl command at test time, on loopback; it reports each handshake's outcome,
/// so the test knows the refusal was the certificate, not a missing server.
final class TLSVerificationTests: XCTestCase {
    private static let serverScript = """
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
            context.wrap_socket(connection, server_side=True).close()
            print("handshake-ok", flush=True)
        except (ssl.SSLError, OSError) as error:
            print("handshake-failed", flush=True)
        """

    func testSelfSignedCertificateIsRefused() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lazyimg-tls-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let cert = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path
        guard run("/usr/bin/env", ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key,
                                   "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1"]) == 0 else {
            throw XCTSkip("openssl could not make a test certificate")
        }

        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        server.arguments = ["python3", "-c", Self.serverScript, cert, key]
        let output = Pipe()
        server.standardOutput = output
        try server.run()
        defer { if server.isRunning { server.terminate() }; server.waitUntilExit() }
        let lines = LineReader(output.fileHandleForReading)
        let port = try XCTUnwrap(lines.next().flatMap(Int.init), "the server printed its port")

        let loader = try XCTUnwrap(CurlDataLoader(maxConcurrentTransfers: 1))
        defer { loader.shutdown() }
        let done = expectation(description: "completion")
        let outcome = OutcomeBox()
        loader.start(1, DataRequest(url: "https://127.0.0.1:\(port)/image.png")) { _, response in
            outcome.response = response
            done.fulfill()
        }
        wait(for: [done], timeout: 20)
        XCTAssertEqual(outcome.response.map { response -> LoaderError? in
            if case .failure(let error) = response.result { return error }
            return nil
        }, .network)
        XCTAssertEqual(outcome.response?.isRetryable, false, "a certificate failure would only repeat")
        XCTAssertEqual(lines.next(), "handshake-failed", "the TLS handshake itself was refused")
    }

    private func run(_ tool: String, _ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }
}

private final class OutcomeBox: @unchecked Sendable {
    var response: DataResponse?
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
