import CCurl

/// libcurl before 8.1.0 can leave an HTTP/2 stream stalled after
/// `curl_easy_pause(CURLPAUSE_CONT)`: when the server's window for the stream ran
/// out during the pause, the data libcurl already buffered is not processed, so it
/// sends no WINDOW_UPDATE and the server sends nothing more (curl issue 10988,
/// fixed by curl pull request 11005 in 8.1.0). Debian 12 ships 7.88.1. Such a
/// transfer would wait for its timeout (15 s by default) with its row blank.
///
/// So on those versions a resumed HTTP/2 transfer that receives nothing for a
/// while is stopped as timed out: its bytes are kept and the retry asks for the
/// rest with Range, which costs one request instead of the timeout.
enum UnpauseStall {
    /// Silence after a resume that ends a transfer. Longer than a server's
    /// usual pause between frames, far shorter than `timeout_ms`.
    static let milliseconds: Int64 = 2_000

    /// libcurl's version has the bug (checked once).
    static let isAffected: Bool = {
        // version_num is in every age of the struct, so the first is enough.
        guard let info = curl_version_info(CURLVERSION_FIRST) else { return false }
        return info.pointee.version_num < 0x08_01_00
    }()

    /// Whether `easy`, just resumed, runs over HTTP/2 on an affected libcurl.
    static func mayStall(_ easy: UnsafeMutableRawPointer) -> Bool {
        guard isAffected else { return false }
        var version = 0
        guard lazyimg_curl_get_long(easy, CURLINFO_HTTP_VERSION, &version) == CURLE_OK else { return false }
        return version == Int(CURL_HTTP_VERSION_2_0)
    }
}
