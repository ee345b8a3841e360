import CLazyImgHeader
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
        // Checked now, so a wrong path is the host's error at create, not a TLS
        // failure on every row later.
        let path = String(cString: caFile)
        guard !path.isEmpty, DataRequest.isSingleHeaderLine(path), access(caFile, R_OK) == 0 else { throw .invalidArgument }
        policy.caFile = path
    }
    return policy
}

/// No spaces or control bytes, and a sane length: a URL.
private func isPlainSetting(_ text: String) -> Bool {
    text.utf8.count <= 4096 && !text.utf8.contains { $0 <= 0x20 || $0 == 0x7F }
}
