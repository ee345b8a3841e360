import Foundation
import LazyImgCore
import TestSupport
import XCTest

/// https is verified: libcurl refuses a server whose certificate no trusted authority
/// signed, unless the loader's CA file names that authority. The server is python3's
/// ssl module with a self-signed certificate made by the openssl command at test
/// time, on loopback; it reports each handshake's outcome, so the test knows the
/// refusal was the certificate, not a missing server, and answers one small GET.
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
            tls = context.wrap_socket(connection, server_side=True)
            print("handshake-ok", flush=True)
            tls.recv(65536)
            tls.sendall(sys.argv[3].encode())
            tls.close()
        except (ssl.SSLError, OSError) as error:
            print("handshake-failed", flush=True)
        """

    func testSelfSignedCertificateIsRefused() throws {
        let outcome = try fetchFromSelfSignedServer(policy: NetworkPolicy())
        XCTAssertEqual(outcome.error, .tls, "a TLS failure of its own, not a plain network error")
        XCTAssertEqual(outcome.handshake, "handshake-failed", "the TLS handshake itself was refused")
    }

    func testRedirectFromHTTPSToHTTPIsRefused() throws {
        let plain = try HTTPTestServer()
        defer { plain.stop() }
        plain.serve("/img", body: [1])
        var policy = NetworkPolicy()
        policy.caFile = ""  // replaced by the test certificate's path
        let redirect = "HTTP/1.1 302 Found\r\nLocation: \(plain.url("/img"))\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        let outcome = try fetchFromSelfSignedServer(policy: policy, response: redirect)
        XCTAssertEqual(outcome.handshake, "handshake-ok")
        XCTAssertEqual(outcome.error, .badURL, "no downgrade from https to http")
        XCTAssertEqual(plain.hits("/img"), 0)
    }

    func testCAFileTrustsAPrivateAuthority() throws {
        var policy = NetworkPolicy()
        policy.caFile = ""  // replaced by the test certificate's path
        let outcome = try fetchFromSelfSignedServer(policy: policy)
        XCTAssertNil(outcome.error)
        XCTAssertEqual(outcome.body, Array("abc".utf8))
        XCTAssertEqual(outcome.handshake, "handshake-ok")
    }

    /// Serves https on loopback with a fresh self-signed certificate for 127.0.0.1 and
    /// fetches from it once. A policy whose caFile is set gets the certificate's path.
    private func fetchFromSelfSignedServer(
        policy: NetworkPolicy,
        response: String = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc"
    ) throws
        -> (error: LoaderError?, body: [UInt8]?, handshake: String?)
    {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lazyimg-tls-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let cert = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path
        guard run("/usr/bin/env", ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key,
                                   "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1",
                                   "-addext", "subjectAltName=IP:127.0.0.1"]) == 0 else {
            throw XCTSkip("openssl could not make a test certificate")
        }

        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        server.arguments = ["python3", "-c", Self.serverScript, cert, key, response]
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
        var trusting = policy
        if trusting.caFile != nil { trusting.caFile = cert }
        loader.start(1, DataRequest(url: "https://127.0.0.1:\(port)/image.png", policy: trusting)) { _, response in
            outcome.response = response
            done.fulfill()
        }
        wait(for: [done], timeout: 20)
        let result = outcome.response?.result
        var error: LoaderError?
        if case .failure(let failure)? = result { error = failure }
        return (error, try? result?.get(), lines.next())
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
