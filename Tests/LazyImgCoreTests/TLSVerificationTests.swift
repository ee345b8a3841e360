#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_3 // ThreadSanitizer group 3 (see the Makefile's tsan)
import LazyImgCore
import TestSupport
import XCTest

/// https is verified: libcurl refuses a server whose certificate no trusted authority
/// signed, unless the request's CA file names that authority; the failure is a TLS
/// error of its own. The server is `TLSTestServer` on loopback.
final class TLSVerificationTests: XCTestCase {
    func testSelfSignedCertificateIsRefused() throws {
        let server = try startServer()
        defer { server.stop() }
        let response = try fetch(server.url("/image.png"), policy: NetworkPolicy())
        XCTAssertEqual(error(of: response), .tls, "a TLS failure of its own, not a plain network error")
        XCTAssertEqual(server.handshakeOutcome(), "handshake-failed", "the TLS handshake itself was refused")
    }

    func testTheEnvironmentsCAVariablesNeverTrustAServer() throws {
        let server = try startServer()
        defer { server.stop() }
        let names = ["SSL_CERT_FILE", "SSL_CERT_DIR", "CURL_CA_BUNDLE"]
        let path = server.certificatePath
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
        for (name, value) in zip(names, [server.certificatePath, directory, server.certificatePath]) {
            setenv(name, value, 1)
        }
        defer { names.forEach { unsetenv($0) } }
        let response = try fetch(server.url("/image.png"), policy: NetworkPolicy())
        XCTAssertEqual(error(of: response), .tls, "only ca_file trusts a private authority")
        XCTAssertEqual(server.handshakeOutcome(), "handshake-failed")
    }

    func testCAFileTrustsAPrivateAuthority() throws {
        let server = try startServer()
        defer { server.stop() }
        var policy = NetworkPolicy()
        policy.trustedAuthorities = try TrustedAuthorities(readingFile: Array(server.certificatePath.utf8))
        let response = try fetch(server.url("/image.png"), policy: policy)
        XCTAssertEqual(try response.result.get(), Array("abc".utf8))
        XCTAssertEqual(server.handshakeOutcome(), "handshake-ok")
    }

    func testRedirectFromHTTPSToHTTPIsRefused() throws {
        let plain = try HTTPTestServer()
        defer { plain.stop() }
        plain.serve("/img", body: [1])
        let redirect = "HTTP/1.1 302 Found\r\nLocation: \(plain.url("/img"))\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        let server = try startServer(response: redirect)
        defer { server.stop() }
        var policy = NetworkPolicy()
        policy.trustedAuthorities = try TrustedAuthorities(readingFile: Array(server.certificatePath.utf8))
        let response = try fetch(server.url("/image.png"), policy: policy)
        XCTAssertEqual(server.handshakeOutcome(), "handshake-ok")
        XCTAssertEqual(error(of: response), .badURL, "no downgrade from https to http")
        XCTAssertEqual(plain.hits("/img"), 0)
    }

    private func startServer(response: String = TLSTestServer.okResponse) throws -> TLSTestServer {
        guard let server = try TLSTestServer(response: response) else {
            throw XCTSkip("openssl or python3 could not run a test TLS server")
        }
        return server
    }

    private func fetch(_ url: String, policy: NetworkPolicy) throws -> DataResponse {
        let loader = try XCTUnwrap(CurlDataLoader(maxConcurrentTransfers: 1))
        defer { loader.shutdown() }
        let done = expectation(description: "completion")
        let outcome = Locked<DataResponse?>(nil)
        loader.start(1, DataRequest(url: url, policy: policy)) { _, response in
            outcome.withLock { $0 = response }
            done.fulfill()
        }
        wait(for: [done], timeout: 20)
        return try XCTUnwrap(outcome.withLock { $0 })
    }

    private func error(of response: DataResponse) -> LoaderError? {
        if case .failure(let error) = response.result { return error }
        return nil
    }
}
#endif
