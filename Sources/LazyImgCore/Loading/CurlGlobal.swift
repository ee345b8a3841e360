import CCurl

/// libcurl's process-wide set-up, done once before the first handle is made.
///
/// curl_global_init is only thread-safe from libcurl 7.84 on and must not race with
/// itself; a static `let` is initialised exactly once under swift_once, so loaders
/// created on several threads at once still call it a single time. There is no
/// matching curl_global_cleanup: other code in the host process may use libcurl too,
/// and the set-up is meant to live as long as the process.
enum CurlGlobal {
    static let isInitialized: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK
}
