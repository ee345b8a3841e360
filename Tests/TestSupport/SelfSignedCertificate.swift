import Foundation

/// A key and a self-signed certificate for 127.0.0.1, made by the openssl command,
/// for the loopback TLS servers of the tests.
struct SelfSignedCertificate {
    let certificatePath: String
    let keyPath: String

    /// Writes cert.pem and key.pem into `directory`; nil when openssl cannot.
    init?(in directory: URL) {
        certificatePath = directory.appendingPathComponent("cert.pem").path
        keyPath = directory.appendingPathComponent("key.pem").path
        guard Self.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", keyPath,
                        "-out", certificatePath, "-days", "1", "-subj", "/CN=127.0.0.1",
                        "-addext", "subjectAltName=IP:127.0.0.1"]) == 0
        else { return nil }
    }

    /// Runs a command found on PATH, silently; its exit status, or -1 if it did not start.
    static func run(_ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }
}
