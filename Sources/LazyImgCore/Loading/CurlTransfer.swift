import CCurl

/// One fetch in flight: its easy handle, its header list and the body received so far.
///
/// Lives only on the network thread (see `CurlTransferLoop`), which is why it needs no
/// lock. The loop keeps it alive while its easy handle is in the multi handle, so the
/// unretained pointer given to the write callback stays valid for every call.
final class CurlTransfer {
    let id: TransferID
    let completion: @Sendable (TransferID, DataResponse) -> Void
    /// The CURL*; cleaned up in deinit, after the loop removed it from the multi handle.
    let easy: UnsafeMutableRawPointer

    /// Must outlive the easy handle's use of it, so it is freed in deinit too.
    private var headerList: UnsafeMutablePointer<curl_slist>?
    /// 0 = no limit.
    private var maxResponseBytes = 0
    private var body: [UInt8] = []
    private var bytesReceived = 0
    private var abortedForSize = false
    private var hasReservedBody = false

    /// nil when libcurl cannot make an easy handle (out of memory).
    init?(id: TransferID, completion: @escaping @Sendable (TransferID, DataResponse) -> Void) {
        guard let easy = curl_easy_init() else { return nil }
        self.id = id
        self.completion = completion
        self.easy = easy
    }

    deinit {
        curl_easy_cleanup(easy)
        curl_slist_free_all(headerList)
    }

    /// Applies the request to the easy handle. Returns the error to report instead of
    /// starting, or nil when the transfer may be added to the multi handle.
    func configure(_ request: DataRequest) -> LoaderError? {
        guard URLCheck.isLoadable(request.url) else { return .badURL }
        // libcurl sends header values as given: a line break would smuggle in a header.
        guard ([request.userAgent] + request.headers).allSatisfy(DataRequest.isSingleHeaderLine) else {
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
        check(lazyimg_curl_set_string(easy, CURLOPT_URL, request.url))
        // Without it, libcurl's DNS timeouts use SIGALRM, which is not ours to take.
        check(lazyimg_curl_set_long(easy, CURLOPT_NOSIGNAL, 1))
        check(lazyimg_curl_set_string(easy, CURLOPT_PROTOCOLS_STR, "http,https,file"))
        // A server must never redirect us onto the local disk.
        check(lazyimg_curl_set_string(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https"))
        check(lazyimg_curl_set_long(easy, CURLOPT_FOLLOWLOCATION, 1))
        check(lazyimg_curl_set_long(easy, CURLOPT_MAXREDIRS, 5))
        check(lazyimg_curl_set_long(easy, CURLOPT_TIMEOUT_MS, timeout))
        check(lazyimg_curl_set_long(easy, CURLOPT_CONNECTTIMEOUT_MS, connectTimeout))
        if maxResponseBytes > 0 {
            // Refuses early when Content-Length (or a file's size) is already too big;
            // the write callback catches bodies whose size was not announced.
            check(lazyimg_curl_set_off(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(maxResponseBytes)))
        }
        check(lazyimg_curl_set_string(easy, CURLOPT_USERAGENT, request.userAgent))
        // No CURLOPT_ACCEPT_ENCODING: images are compressed already, and decompressing
        // would let a small response grow past maxResponseBytes behind our back.
        for line in request.headers {
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

    /// One allocation for the whole body when the server announced its size, but
    /// never more than the limit, whatever the header claims.
    private func reserveForAnnouncedLength() {
        var announced: curl_off_t = -1
        guard lazyimg_curl_get_off(easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &announced) == CURLE_OK,
              announced > 0 else { return }
        let cap = maxResponseBytes > 0 ? maxResponseBytes : 64 << 20
        body.reserveCapacity(min(Int(announced), cap))
    }

    private var lastHTTPStatus: Int {
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
        return DataResponse(result: result, httpStatus: status, bytesReceived: bytesReceived,
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
