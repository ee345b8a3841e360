#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_4 // ThreadSanitizer group 4 (see the Makefile's tsan)
import CLazyImgHeader
import Glibc
import TestSupport
import XCTest

/// ca_file is read once, at create, on real files: whatever is not a regular file
/// with a PEM certificate is refused there with a reason, instead of blocking the
/// network thread in OpenSSL's open() (a FIFO) or failing every https row as "not
/// trusted" (a directory, a file of something else).
final class CAFileTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
    }

    override func tearDown() {
        directory.remove()
    }

    /// lazyimg_loader_create's status and lazyimg_create_error's text for this ca_file.
    private func create(caFile path: String) -> (status: lazyimg_status, reason: String) {
        var config = lazyimg_config()
        lazyimg_config_init(&config)
        var loader: OpaquePointer?
        let status = path.withCString { caFile in
            config.ca_file = caFile
            return lazyimg_loader_create(&config, &loader)
        }
        let reason = String(cString: lazyimg_create_error())
        _ = lazyimg_loader_destroy(loader)
        return (status, reason)
    }

    private func file(_ name: String, _ bytes: [UInt8]) -> String {
        let path = directory.path + "/" + name
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        XCTAssertGreaterThanOrEqual(fd, 0)
        XCTAssertEqual(bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }, bytes.count)
        close(fd)
        return path
    }

    func testAFIFOIsRefusedAtCreateWithoutBlocking() {
        let path = directory.path + "/ca.pem"
        XCTAssertEqual(mkfifo(path, 0o600), 0)
        // Before: access(R_OK) passed, and the network thread later blocked in open().
        let created = create(caFile: path)
        XCTAssertEqual(created.status, LAZYIMG_E_INVALID_ARGUMENT)
        XCTAssertEqual(created.reason, "ca_file \(path) is a FIFO, not a file")
    }

    func testADirectoryADeviceAndAMissingFileAreRefused() {
        XCTAssertEqual(create(caFile: directory.path).reason, "ca_file \(directory.path) is a directory, not a file")
        XCTAssertEqual(create(caFile: "/dev/zero").reason, "ca_file /dev/zero is a device, not a file")
        let missing = directory.path + "/missing.pem"
        XCTAssertEqual(create(caFile: missing).status, LAZYIMG_E_INVALID_ARGUMENT)
        XCTAssertEqual(create(caFile: missing).reason, "ca_file \(missing): No such file or directory")
    }

    func testAFileWithoutACertificateIsRefused() {
        let texts = ["", "not a certificate\n",
                     "-----BEGIN CERTIFICATE-----\nnot base64!\n-----END CERTIFICATE-----\n",
                     "-----BEGIN CERTIFICATE-----\nMIIB\n",
                     "-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----\n"]
        for (n, text) in texts.enumerated() {
            let path = file("bad\(n).pem", Array(text.utf8))
            let created = create(caFile: path)
            XCTAssertEqual(created.status, LAZYIMG_E_INVALID_ARGUMENT, text)
            XCTAssertEqual(created.reason, "ca_file \(path) holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
        }
    }

    func testAFileLargerThanTheLimitIsRefused() {
        let path = file("huge.pem", [UInt8](repeating: 0x41, count: (4 << 20) + 1))
        XCTAssertEqual(create(caFile: path).reason, "ca_file \(path) is larger than 4 MiB")
    }

    func testARealCAFileIsAcceptedAndTheReasonClears() throws {
        _ = create(caFile: directory.path)
        guard let tls = try TLSTestServer() else { throw XCTSkip("openssl or python3 could not run a test TLS server") }
        defer { tls.stop() }
        let created = create(caFile: tls.certificatePath)
        XCTAssertEqual(created.status, LAZYIMG_OK)
        XCTAssertEqual(created.reason, "")
    }

    func testASessionRefusesTheSameFiles() {
        var config = lazyimg_config()
        lazyimg_config_init(&config)
        var session: OpaquePointer?
        let status = directory.path.withCString { caFile in
            config.ca_file = caFile
            return lazyimg_session_create(&config, &session)
        }
        XCTAssertEqual(status, LAZYIMG_E_INVALID_ARGUMENT)
        XCTAssertNil(session)
        XCTAssertTrue(String(cString: lazyimg_create_error()).hasSuffix("is a directory, not a file"))
    }
}
#endif
