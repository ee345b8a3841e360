import CCurl
import Glibc

/// Who resolves a hop's host name: the network thread's own `HostResolver`, whose
/// answer reaches libcurl as a CURLOPT_RESOLVE entry, or libcurl itself where it needs
/// no lookup thread (an IP address, localhost) or where a proxy is used (libcurl then
/// looks up only the proxy's name, the proxy the rest; CURLOPT_QUICK_EXIT keeps that
/// lookup from freezing the network thread, but nothing bounds its threads).
enum HostLookup: Equatable {
    case byLibcurl
    /// Look `name` up (lower case, IDN names in punycode as libcurl connects to
    /// them) and hand libcurl its addresses for `port`.
    case name(String, port: Int)

    /// nil when the URL's host cannot be looked up: no host, or bytes no DNS name has.
    init?(_ url: ImageURL, proxy: NetworkPolicy.Proxy) {
        guard let parsed = CurlURL(url), let scheme = parsed.part(CURLUPART_SCHEME)?.lowercased(),
              let host = parsed.part(CURLUPART_HOST, flags: CURLU_PUNYCODE)?.lowercased(), !host.isEmpty,
              let port = parsed.part(CURLUPART_PORT, flags: CURLU_DEFAULT_PORT).flatMap({ Int($0) })
        else { return nil }
        if Self.proxyApplies(proxy, scheme: scheme) || Self.needsNoLookup(host) {
            self = .byLibcurl
            return
        }
        // What CURLOPT_RESOLVE's "name:port:addresses" can carry, and DNS names hold.
        guard host.utf8.count < 256, host.utf8.allSatisfy(Self.isNameByte) else { return nil }
        self = .name(host, port: port)
    }

    /// The CURLOPT_RESOLVE entry giving `addresses` for this name. "+": the entry
    /// expires from libcurl's DNS cache like one it looked up itself.
    func resolveEntry(_ addresses: [String]) -> String? {
        guard case .name(let name, let port) = self else { return nil }
        return "+\(name):\(port):" + addresses.joined(separator: ",")
    }

    /// IP addresses and localhost names libcurl answers itself, on the network thread
    /// but without a lookup (curl_url writes IPv4 in dotted decimal, IPv6 in brackets).
    private static func needsNoLookup(_ host: String) -> Bool {
        if host.hasPrefix("[") || host == "localhost" || host.hasSuffix(".localhost") { return true }
        var address = in_addr()
        return inet_pton(AF_INET, host, &address) == 1
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }

    /// Whether libcurl would send this request through a proxy: a configured one, or
    /// one its environment variables name for the scheme. no_proxy is not read, so a
    /// host it exempts is left to libcurl as well.
    private static func proxyApplies(_ proxy: NetworkPolicy.Proxy, scheme: String) -> Bool {
        switch proxy {
        case .none: return false
        case .url: return true
        case .environment:
            // libcurl's names: http_proxy only in lower case (HTTP_PROXY can be set by
            // a CGI request), https_proxy in either, then all_proxy in either.
            let names = scheme == "https" ? ["https_proxy", "HTTPS_PROXY"] : ["http_proxy"]
            return (names + ["all_proxy", "ALL_PROXY"]).contains { name in
                getenv(name).map { $0.pointee != 0 } ?? false
            }
        }
    }
}
