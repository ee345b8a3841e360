import CCurl

/// One fetch in flight: its easy handle, its header list and the body received so far.
///
/// Lives only on the network thread (see `CurlTransferLoop`), which is why it needs no
/// lock. The loop keeps it alive while its easy handle is in the multi handle, so the
/// unretained pointer given to the write callback stays valid for every call.
final class CurlTransfer {
    let id: TransferID
    let completion: @Sendable (TransferID, DataResponse) -> Void
    /// Where the scheduler reads how far the body got.
    let counters: TransferCounters
    /// The CURL*; cleaned up in deinit, after the loop removed it from the multi handle.
    let easy: UnsafeMutableRawPointer

    /// Must outlive the easy handle's use of it, so it is freed in deinit too.
    private var headerList: UnsafeMutablePointer<curl_slist>?
    /// 0 = no limit.
    private var maxResponseBytes = 0
    private var body: [UInt8] = []
    private(set) var bytesReceived = 0
    /// The request this easy handle runs, and the redirects that led to it.
    let hop: Hop
    private var abortedForSize = false
    private var hasReservedBody = false

    /// nil when libcurl cannot make an easy handle (out of memory).
    init?(id: TransferID, hop: Hop, counters: TransferCounters,
          completion: @escaping @Sendable (TransferID, DataResponse) -> Void) {
        guard let easy = curl_easy_init() else { return nil }
        self.id = id
        self.hop = hop
        self.counters = counters
        self.completion = completion
        self.easy = easy
    }

    deinit {
        curl_easy_cleanup(easy)
        curl_slist_free_all(headerList)
    }

    /// Applies the hop's request to the easy handle. Returns the error to report
    /// instead of starting, or nil when the transfer may be added to the multi handle.
    func configure() -> LoaderError? {
        let request = hop.request
        // Never file://: libcurl's file handler blocks on a FIFO or a tty (LocalFileLoader reads files).
        guard URLCheck.isLoadable(request.url, allowingFiles: false) else { return .badURL }
        // libcurl sends header values as given: a line break would smuggle in a header.
        guard DataRequest.isSingleHeaderLine(request.userAgent), request.headers.allSatisfy(DataRequest.isCustomHeader),
              request.validators.allSatisfy(DataRequest.isSingleHeaderLine) else {
            return .invalidArgument
        }
        maxResponseBytes = max(0, request.maxResponseBytes)
        let timeout = max(0, request.timeoutMilliseconds)
        // Connecting may take at most 10 s, and never longer than the whole transfer.
        let connectTimeout = timeout == 0 ? 10_000 : min(timeout, 10_000)

        var firstFailure = CURLE_OK
        func check(_ code: CURLcode) {
            if firstFailure == CURLE_OK { firstFailure = code }
        }
        // libcurl copies the URL: its bytes exactly as the host gave them.
        check(request.url.withCString { lazyimg_curl_set_string(easy, CURLOPT_URL, $0) })
        // Without it, libcurl's DNS timeouts use SIGALRM, which is not ours to take.
        check(lazyimg_curl_set_long(easy, CURLOPT_NOSIGNAL, 1))
        check(lazyimg_curl_set_string(easy, CURLOPT_PROTOCOLS_STR, "http,https"))
        // Redirects are ours to follow (CurlTransfer+Redirect), hop by hop.
        check(lazyimg_curl_set_long(easy, CURLOPT_FOLLOWLOCATION, 0))
        switch request.policy.proxy {
        case .environment: break
        // An empty proxy tells libcurl to ignore the proxy variables too.
        case .none: check(lazyimg_curl_set_string(easy, CURLOPT_PROXY, ""))
        case .url(let proxy): check(lazyimg_curl_set_string(easy, CURLOPT_PROXY, proxy))
        }
        if let caFile = request.policy.caFile {
            check(lazyimg_curl_set_string(easy, CURLOPT_CAINFO, caFile))
        }
        check(lazyimg_curl_set_long(easy, CURLOPT_TIMEOUT_MS, timeout))
        check(lazyimg_curl_set_long(easy, CURLOPT_CONNECTTIMEOUT_MS, connectTimeout))
        if maxResponseBytes > 0 {
            // Refuses early when Content-Length (or a file's size) is already too big;
            // the write callback catches bodies whose size was not announced.
            check(lazyimg_curl_set_off(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(maxResponseBytes)))
        }
        check(lazyimg_curl_set_string(easy, CURLOPT_USERAGENT, request.userAgent))
        if URLCheck.hasPrefixIgnoringCase(request.url.bytes, "https:") {
            // A screenful of rows to a new https host: wait for the first connection's
            // ALPN answer and multiplex over it if it speaks HTTP/2, instead of opening
            // a connection per row. (Plain http never speaks HTTP/2 here, so waiting
            // would only serialise.)
            check(lazyimg_curl_set_long(easy, CURLOPT_PIPEWAIT, 1))
        }
        // No CURLOPT_ACCEPT_ENCODING: images are compressed already, and decompressing
        // would let a small response grow past maxResponseBytes behind our back.
        for line in request.withAccept(request.policy.headers(request.headers, for: request.url, startingAt: hop.firstURL))
            + request.validators {
            guard let extended = curl_slist_append(headerList, line) else { return .noMemory }
            headerList = extended
        }
        if headerList != nil {
            check(lazyimg_curl_set_slist(easy, CURLOPT_HTTPHEADER, headerList))
        }
        check(lazyimg_curl_set_write_fn(easy) { data, size, count, context in
            let length = size * count
            guard let context else { return 0 }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
            let bytes = UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : length)
            // Any count other than `length` makes libcurl abort with CURLE_WRITE_ERROR.
            return transfer.receive(bytes) ? length : 0
        })
        check(lazyimg_curl_set_pointer(easy, CURLOPT_WRITEDATA, Unmanaged.passUnretained(self).toOpaque()))
        return firstFailure == CURLE_OK ? nil : LoaderError(curlCode: firstFailure)
    }

    /// The write callback's work: keep the bytes, or refuse them once the body would
    /// exceed the limit. Returns false to abort the transfer.
    private func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytesReceived += bytes.count
        counters.didReceive(total: bytesReceived)
        if maxResponseBytes > 0 && bytesReceived > maxResponseBytes {
            abortedForSize = true
            return false
        }
        // An error page is not an image: count it but do not keep it.
        guard lastHTTPStatus < 400 else { return true }
        if !hasReservedBody {
            hasReservedBody = true
            reserveForAnnouncedLength()
        }
        body.append(contentsOf: bytes)
        return true
    }

    /// The most a Content-Length may make us reserve ahead of the bytes: the header is
    /// the server's claim, so beyond this the body grows only as bytes really arrive.
    static let maxReserveBytes = 1 << 20

    /// One allocation for a small body whose size the server announced; a large one
    /// starts at `maxReserveBytes` and grows with the bytes.
    private func reserveForAnnouncedLength() {
        var announced: curl_off_t = -1
        guard lazyimg_curl_get_off(easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &announced) == CURLE_OK,
              announced > 0 else { return }
        counters.didAnnounce(length: Int(clamping: announced))
        var reserve = min(Int(clamping: announced), Self.maxReserveBytes)
        if maxResponseBytes > 0 { reserve = min(reserve, maxResponseBytes) }
        body.reserveCapacity(reserve)
    }

    /// libcurl reads Retry-After in seconds (and as a date, which it turns into
    /// seconds from now); nil when absent.
    private var retryAfterMilliseconds: Int64? {
        var seconds: curl_off_t = 0
        guard lazyimg_curl_get_off(easy, CURLINFO_RETRY_AFTER, &seconds) == CURLE_OK, seconds > 0 else { return nil }
        return Int64(seconds).multipliedClamped(by: 1000)
    }

    var lastHTTPStatus: Int {
        var status = 0
        _ = lazyimg_curl_get_long(easy, CURLINFO_RESPONSE_CODE, &status)
        return status
    }

    /// How the transfer ended, from libcurl's result code. An HTTP error status wins
    /// over everything else (a 404 whose page was cut off is still a 404); our own
    /// size abort surfaces as CURLE_WRITE_ERROR and is reported as `.tooLarge`.
    func response(finishedWith code: CURLcode) -> DataResponse {
        let status = lastHTTPStatus
        let result: Result<[UInt8], LoaderError>
        if status >= 400 {
            result = .failure(.http(status: status))
        } else if abortedForSize {
            result = .failure(.tooLarge)
        } else if code != CURLE_OK {
            result = .failure(LoaderError(curlCode: code))
        } else {
            result = .success(body)
        }
        body = []
        return DataResponse(result: result, httpStatus: status, bytesReceived: hop.earlierBytes + bytesReceived,
                            retryAfterMilliseconds: retryAfterMilliseconds,
                            cacheHeaders: HTTPCacheHeaders(etag: header("ETag"), lastModified: header("Last-Modified"),
                                                           cacheControl: header("Cache-Control")))
    }

    /// A header of the last response (after redirects), as libcurl kept it.
    private func header(_ name: String) -> String? {
        var found: UnsafeMutablePointer<curl_header>?
        guard curl_easy_header(easy, name, 0, UInt32(CURLH_HEADER), -1, &found) == CURLHE_OK,
              let value = found?.pointee.value else { return nil }
        return String(cString: value)
    }
}
