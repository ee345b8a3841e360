import Glibc

/// The certificate authorities a loader trusts instead of the system's: a PEM file
/// read once, when the loader is made, and handed to libcurl from memory
/// (CURLOPT_CAINFO_BLOB) for every connection.
///
/// Read then, not by OpenSSL on the network thread for each connection: a path
/// naming a FIFO blocked that thread in open() for good, and a directory or a file
/// without a certificate made every https row fail as "not trusted".
public final class TrustedAuthorities: @unchecked Sendable, Hashable {
    // @unchecked: `pem` is written once in init and only read after.
    /// Why a CA file is refused, in words for the host.
    public struct Refusal: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// Far larger than any system's CA bundle, and within what libcurl takes as a
    /// blob (CURL_MAX_INPUT_LENGTH, 8 MB).
    public static let maxBytes = 4 << 20

    /// The file's bytes, at a fixed address for libcurl (it does not copy them).
    let pem: UnsafeMutableRawBufferPointer
    /// What two loaders' files are compared by (the session's download table).
    private let digest: [UInt8]

    /// Reads `path` (bytes, as the host gave them): a regular file of at most
    /// `maxBytes` holding at least one PEM certificate.
    public init(readingFile path: [UInt8]) throws(Refusal) {
        let shown = String(decoding: path, as: UTF8.self)
        let bytes: [UInt8]
        switch RegularFile.read(path, limit: Self.maxBytes) {
        case .success(let read): bytes = read
        case .failure(.cannotOpen(let code)): throw Refusal(description: "ca_file \(shown): \(errorText(code))")
        case .failure(.cannotRead(let code)): throw Refusal(description: "ca_file \(shown): \(errorText(code))")
        case .failure(.notRegular(let kind)): throw Refusal(description: "ca_file \(shown) is \(kind), not a file")
        case .failure(.tooLarge): throw Refusal(description: "ca_file \(shown) is larger than 4 MiB")
        }
        guard Self.holdsACertificate(bytes) else {
            throw Refusal(description: "ca_file \(shown) holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
        }
        pem = .allocate(byteCount: bytes.count, alignment: 1)
        pem.copyBytes(from: bytes)
        digest = SHA256.digest(bytes)
    }

    deinit {
        pem.deallocate()
    }

    public static func == (lhs: TrustedAuthorities, rhs: TrustedAuthorities) -> Bool {
        lhs.digest == rhs.digest
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(digest)
    }

    /// A BEGIN line of a certificate (as OpenSSL's PEM reader names them), base64
    /// that starts as DER's SEQUENCE does ("M" is 0x30's first six bits), and its
    /// END line. OpenSSL has the final word; this refuses what is plainly no CA file.
    static func holdsACertificate(_ bytes: [UInt8]) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self)
        for label in ["CERTIFICATE", "TRUSTED CERTIFICATE", "X509 CERTIFICATE"] {
            guard let begin = text.firstRange(of: "-----BEGIN \(label)-----"),
                  let end = text[begin.upperBound...].firstRange(of: "-----END \(label)-----") else { continue }
            let body = text[begin.upperBound..<end.lowerBound].filter { !$0.isWhitespace }
            let isBase64 = body.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+/=".contains($0)) }
            if isBase64, body.first == "M" { return true }
        }
        return false
    }
}

/// strerror's text for an errno.
private func errorText(_ code: Int32) -> String {
    String(cString: strerror(code))
}
