import CLazyImgHeader
import CLazyImgSupport
import Glibc
import LazyImgCore

/// The 0.3 security fields of `lazyimg_config`: where headers go, the proxy, the CA file.
func readNetworkPolicy(_ c: lazyimg_config) throws(LoaderError) -> NetworkPolicy {
    var policy = NetworkPolicy()
    if var line = c.http_headers_origins {
        var origins = Set<Origin>()
        while let text = line.pointee {
            guard origins.count < 256, let origin = Origin(configured: String(cString: text)) else {
                throw .invalidArgument
            }
            origins.insert(origin)
            line += 1
        }
        policy.headerOrigins = origins
    }
    if let proxy = c.proxy {
        let text = String(cString: proxy)
        guard isPlainSetting(text) else { throw .invalidArgument }
        policy.proxy = text.isEmpty ? .none : .url(text)
    }
    if let caFile = c.ca_file {
        // Read now, so a wrong file is the host's error at create, not a TLS failure
        // on every row later, and nothing on the network thread opens it.
        do throws(TrustedAuthorities.Refusal) {
            policy.trustedAuthorities = try TrustedAuthorities(readingFile: Array(UnsafeRawBufferPointer(
                start: caFile, count: strlen(caFile))))
        } catch {
            throw refusal(error.description)
        }
    }
    return policy
}

/// INVALID_ARGUMENT, with the reason lazyimg_create_error gives the host.
func refusal(_ reason: String) -> LoaderError {
    lazyimg_create_error_set(reason)
    return .invalidArgument
}

/// No spaces or control bytes, and a sane length: a URL.
private func isPlainSetting(_ text: String) -> Bool {
    text.utf8.count <= 4096 && !text.utf8.contains { $0 <= 0x20 || $0 == 0x7F }
}
