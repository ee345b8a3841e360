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

    /// Must outlive the easy handle's use of them, so they are freed in deinit too.
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private var resolveList: UnsafeMutablePointer<curl_slist>?
    /// Within what is left of the request's limit, charged to its budget. Not
    /// private: resuming (CurlTransfer+Resume) starts it with a kept partial body.
    var body: ResponseBody
    var bytesReceived: Int { body.received }
    /// The request this easy handle runs, and the redirects that led to it.
    let hop: Hop
    private var abortedForSize = false
    private var isAnnounced = false
    /// When the transfer times out (monotonic ms), nil for never: the hop's deadline,
    /// moved on by every pause, which is the loader's waiting and not the server's.
    private(set) var deadline: Int64?
    /// Since when the write callback has held the transfer paused for budget room.
    private(set) var pausedAt: Int64?
    /// Once a transfer that may stall has been resumed (see `UnpauseStall`): the
    /// moment by which more of its body must arrive, and its length so far.
    private(set) var stallCheck: (by: Int64, received: Int)?
    /// Header bytes of this hop so far, the status lines of 1xx answers included.
    private var headerBytes = 0
    private var headersTooLarge = false
    /// Set by the blank line after the final status's headers: an allocation that
    /// fails before it is libcurl refusing a header line over its 100 KB.
    private(set) var headersEnded = false
    /// Whether this hop asked for the rest of a kept partial body, and how that went.
    var resumption = Resumption.none
    /// What of the body is worth a preview, while the request wants its prefixes.
    private var previewPrefixes: PreviewPrefixes?
    /// While a body fetched whole may end at its first pass (CurlTransfer+FirstPassWatch).
    var firstPassWatch: FirstPassWatch?
    /// Where the body's first pass ends, once the transfer stops there.
    var firstPassStop: Int?
    /// When a watched body that has gone quiet is looked at again (monotonic ms).
    var quietLookAt: Int64?
    /// This hop asked for the file's start and got the whole file (a 200).
    var ignoredRange = false

    /// All headers of one response together; past it the reply is refused (libcurl
    /// itself refuses one line over 100 KB, and 300 KB in all).
    static let maxHeaderBytes = 256 << 10

    /// nil when libcurl cannot make an easy handle (out of memory).
    init?(id: TransferID, hop: Hop, counters: TransferCounters,
          completion: @escaping @Sendable (TransferID, DataResponse) -> Void) {
        guard let easy = curl_easy_init() else { return nil }
        self.id = id
        self.hop = hop
        self.counters = counters
        self.completion = completion
        self.easy = easy
        deadline = hop.deadline
        // The hop's limit is set by `configure`.
        body = ResponseBody(limit: 0, budget: hop.request.memoryBudget)
    }

    deinit {
        curl_easy_cleanup(easy)
        curl_slist_free_all(headerList)
        curl_slist_free_all(resolveList)
    }

    /// Applies the hop's request to the easy handle, with the addresses of its host
    /// when the network thread looked them up (`resolveEntry`, CURLOPT_RESOLVE's
    /// form). Returns the error to report instead of starting, or nil when the
    /// transfer may be added to the multi handle.
    func configure(resolveEntry: String?, now: Int64) -> LoaderError? {
        let request = hop.request
        // libcurl sends header values as given: a line break would smuggle in a header.
        guard DataRequest.isSingleHeaderLine(request.userAgent), request.headers.allSatisfy(DataRequest.isCustomHeader),
              request.validators.allSatisfy(DataRequest.isSingleHeaderLine) else {
            return .invalidArgument
        }
        // One limit for the bodies of all hops together: a chain of redirects with
        // large pages could otherwise take 6 times it.
        var maxResponseBytes = 0
        if request.maxResponseBytes > 0 {
            guard hop.earlierBytes < request.maxResponseBytes else { return .tooLarge }
            maxResponseBytes = request.maxResponseBytes - hop.earlierBytes
        }
        body = ResponseBody(limit: maxResponseBytes, budget: request.memoryBudget)
        offerPartialBody(limit: maxResponseBytes)
        askForTheStart()
        if request.onPrefix != nil { previewPrefixes = PreviewPrefixes() }
        // What is left of the transfer's time after earlier hops and the name lookup.
        // The loop enforces the deadline itself (CurlTransferLoop.expireOverdue), as
        // libcurl's CURLOPT_TIMEOUT_MS would count the time a transfer is paused.
        var timeout = 0
        if let deadline {
            guard deadline > now else { return .network }
            timeout = Int(clamping: deadline - now)
        }
        // Connecting may take at most 10 s, and never longer than the whole transfer.
        let connectTimeout = timeout == 0 ? 10_000 : min(timeout, 10_000)

        var firstFailure = CURLE_OK
        func check(_ code: CURLcode) {
            if firstFailure == CURLE_OK { firstFailure = code }
        }
        // libcurl copies the URL: the host's bytes, the query's past ASCII encoded.
        check(request.url.onTheWire.withCString { lazyimg_curl_set_string(easy, CURLOPT_URL, $0) })
        // Without it, libcurl's DNS timeouts use SIGALRM, which is not ours to take.
        check(lazyimg_curl_set_long(easy, CURLOPT_NOSIGNAL, 1))
        if let resolveEntry {
            guard let list = curl_slist_append(nil, resolveEntry) else { return .noMemory }
            resolveList = list
            check(lazyimg_curl_set_slist(easy, CURLOPT_RESOLVE, list))
            // The entry must outlive a wait for a connection in libcurl's queue.
            check(lazyimg_curl_set_long(easy, CURLOPT_DNS_CACHE_TIMEOUT, max(60, timeout / 1000 + 1)))
        }
        // A name libcurl still resolves itself (a proxy's) is forgotten, not waited
        // for on this thread, when its transfer times out or is removed: libcurl 7.88
        // otherwise joins its resolver thread in multi_done (Curl_resolver_kill).
        check(lazyimg_curl_set_long(easy, CURLOPT_QUICK_EXIT, 1))
        check(lazyimg_curl_set_string(easy, CURLOPT_PROTOCOLS_STR, "http,https"))
        // Redirects are ours to follow (CurlTransfer+Redirect), hop by hop.
        check(lazyimg_curl_set_long(easy, CURLOPT_FOLLOWLOCATION, 0))
        switch request.policy.proxy {
        case .environment: break
        // An empty proxy tells libcurl to ignore the proxy variables too.
        case .none: check(lazyimg_curl_set_string(easy, CURLOPT_PROXY, ""))
        case .url(let proxy): check(lazyimg_curl_set_string(easy, CURLOPT_PROXY, proxy))
        }
        if let authorities = request.policy.trustedAuthorities {
            // Read at create; the request holds it while this handle lives. The blob
            // replaces the CA file, and no CA directory may add the system's back.
            check(lazyimg_curl_set_blob(easy, CURLOPT_CAINFO_BLOB, authorities.pem.baseAddress, authorities.pem.count))
            check(lazyimg_curl_set_string(easy, CURLOPT_CAPATH, nil))
        }
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
            + request.validators + resumption.rangeHeaders(upTo: hop.askedEnd) {
            guard let extended = curl_slist_append(headerList, line) else { return .noMemory }
            headerList = extended
        }
        if headerList != nil {
            check(lazyimg_curl_set_slist(easy, CURLOPT_HTTPHEADER, headerList))
        }
        // Any count other than the one given makes libcurl abort (CURLE_WRITE_ERROR);
        // CURL_WRITEFUNC_PAUSE pauses, and libcurl hands the same bytes again later.
        check(lazyimg_curl_set_write_fn(easy) { data, size, count, context in
            guard let context, case (let length, false) = size.multipliedReportingOverflow(by: count) else { return 0 }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
            switch transfer.receive(UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : length)) {
            // Stopped at the first pass: the bytes are kept, and the 0 ends the transfer.
            case .taken: return transfer.firstPassStop == nil ? length : 0
            case .overLimit: return 0
            case .paused: return Int(CURL_WRITEFUNC_PAUSE)
            }
        })
        check(lazyimg_curl_set_header_fn(easy) { data, size, count, context in
            guard let context, case (let length, false) = size.multipliedReportingOverflow(by: count) else { return 0 }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
            return transfer.receiveHeader(UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : length))
                ? length : 0
        })
        let context = Unmanaged.passUnretained(self).toOpaque()
        check(lazyimg_curl_set_pointer(easy, CURLOPT_WRITEDATA, context))
        check(lazyimg_curl_set_pointer(easy, CURLOPT_HEADERDATA, context))
        return firstFailure == CURLE_OK ? nil : LoaderError(curlCode: firstFailure)
    }

    /// The header callback's work: count the bytes, note the end of the final
    /// headers. Returns false to abort the transfer.
    private func receiveHeader(_ line: UnsafeRawBufferPointer) -> Bool {
        headerBytes = headerBytes.addingClamped(line.count)
        guard headerBytes <= Self.maxHeaderBytes else {
            headersTooLarge = true
            return false
        }
        let isBlank = line.count <= 2 && line.allSatisfy { $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\n") }
        if isBlank && lastHTTPStatus >= 200 {
            headersEnded = true
            guard answerDidArrive() else { return false }
            watchForFirstPass()
            return true
        }
        return true
    }

    /// The write callback's work: keep the bytes (only counting them when the status
    /// says they are no image), refuse them once the body would exceed the limit, or
    /// pause while the budget has no room for them.
    private func receive(_ bytes: UnsafeRawBufferPointer) -> ResponseBody.Reception {
        if !isAnnounced {
            isAnnounced = true
            var announced: curl_off_t = -1
            if lazyimg_curl_get_off(easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &announced) == CURLE_OK, announced >= 0 {
                body.announced = body.prefixLength.addingClamped(Int(clamping: announced))
                counters.didAnnounce(length: Int(clamping: announced))
            }
        }
        let reception = body.receive(bytes, keep: Self.mayHoldAnImage(status: lastHTTPStatus) || resumption.takes206,
                                     owner: ObjectIdentifier(self))
        switch reception {
        case .taken:
            counters.didReceive(total: body.received)
            if firstPassWatch != nil { lookForFirstPass() }
            if previewPrefixes != nil { offerPrefix() }
        case .overLimit: abortedForSize = true
        case .paused: pausedAt = MonotonicClock().nowMilliseconds
        }
        return reception
    }

    /// Hands the request a start of the body worth a preview (`PreviewPrefixes`), as
    /// the body goes on growing.
    private func offerPrefix() {
        // The start of a file that may end at its first pass: that pass is the final
        // image for the box, and is not a whole body's prefix.
        if case .receivingStart = resumption { return }
        // Nor is a body still watched for it: its first pass would be the final image.
        guard firstPassWatch == nil, firstPassStop == nil, hop.askedEnd == nil, let sink = hop.request.onPrefix,
              let prefix = previewPrefixes?.prefix(of: body.kept) else { return }
        sink(prefix)
    }

    /// Network thread, outside libcurl's callbacks: lets a paused transfer go on. Its
    /// deadline moves by the pause. The write callback runs at once with the bytes
    /// held back, and may pause it again.
    func resume(now: Int64) {
        guard let since = pausedAt else { return }
        pausedAt = nil
        deadline = deadline.map { $0.addingClamped(now - since) }
        _ = curl_easy_pause(easy, CURLPAUSE_CONT)
        if pausedAt == nil, stallCheck != nil || UnpauseStall.mayStall(easy) {
            stallCheck = (now.addingClamped(UnpauseStall.milliseconds), body.received)
        }
    }

    /// Whether the transfer, resumed at least once, has received nothing for
    /// `UnpauseStall.milliseconds` while running. The stall may come after the
    /// first bytes that follow the resume (those libcurl held), so every arrival
    /// moves the moment on rather than ending the watch.
    func hasStalled(now: Int64) -> Bool {
        guard let check = stallCheck, pausedAt == nil else { return false }
        if body.received > check.received {
            stallCheck = (now.addingClamped(UnpauseStall.milliseconds), body.received)
            return false
        }
        return now >= check.by
    }

    /// The loop is done with the transfer: its charge goes back to the budget.
    func releaseBudget() {
        body.release(owner: ObjectIdentifier(self))
    }

    /// What the budget holds for this transfer, for choosing whom to resume first.
    var budgetCharge: Int { body.charged }

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

    /// 2xx statuses whose body is the resource: not 204 and 205 (no body) or 206
    /// (a part, and no Range was asked for).
    static func mayHoldAnImage(status: Int) -> Bool {
        (200..<300).contains(status) && !(204...206).contains(status)
    }

    /// How the transfer ended, from libcurl's result code. A reply that broke HTTP
    /// or an HTTP error status wins over everything else (a 404 whose page was cut
    /// off is still a 404); our own aborts surface as CURLE_WRITE_ERROR and are
    /// reported as what they were.
    func response(finishedWith code: CURLcode) -> DataResponse {
        let status = lastHTTPStatus
        let result: Result<[UInt8], LoaderError>
        if let violation = protocolViolation(finishedWith: code, status: status) {
            result = .failure(.protocolViolation(violation))
        } else if status >= 400 {
            result = .failure(.http(status: status))
        } else if abortedForSize {
            result = .failure(.tooLarge)
        } else if code != CURLE_OK {
            result = .failure(LoaderError(curlCode: code))
        } else {
            result = .success(body.take())
        }
        // A body completed by a 206 is the whole resource, as a 200 would have brought it.
        let appended = resumption.takes206 && code == CURLE_OK
        var response = DataResponse(result: result, httpStatus: appended ? 200 : status,
                                    bytesReceived: receivedInAll, retryAfterMilliseconds: retryAfterMilliseconds,
                                    cacheHeaders: cacheHeaders)
        if appended, case .success = result { response.resumedBytes = resumedBytes }
        return response
    }

    /// Body bytes of every hop of the transfer: redirect pages, its own earlier
    /// ranges and this hop's.
    var receivedInAll: Int {
        hop.earlierBytes.addingClamped(hop.continuedBytes).addingClamped(bytesReceived)
    }

    /// Of the body's bytes, those kept from an earlier download and not fetched again.
    var resumedBytes: Int {
        max(0, body.prefixLength - hop.continuedBytes)
    }

    /// What the final response said about caching its body.
    var cacheHeaders: HTTPCacheHeaders {
        HTTPCacheHeaders(etag: header("ETag"), lastModified: header("Last-Modified"),
                         cacheControl: listHeader("Cache-Control"), vary: listHeader("Vary"))
    }

    /// Whose fault a hop's end was, when it was the server's reply.
    private func protocolViolation(finishedWith code: CURLcode, status: Int) -> ProtocolViolation? {
        if headersTooLarge || (code == CURLE_OUT_OF_MEMORY && !headersEnded) { return .headersTooLarge }
        // The URL passed our checks, so libcurl's "unsupported protocol" here is
        // HTTP/0.9 (or a 1xx followed by something that is not a status line).
        if code == CURLE_UNSUPPORTED_PROTOCOL || code == CURLE_WEIRD_SERVER_REPLY { return .notHTTP }
        if status != 0 && !(100..<600).contains(status) { return .badStatus(status) }
        guard code == CURLE_OK else { return nil }
        switch status {
        case 206 where resumption.takes206: return nil
        case 204, 205, 206: return .noBodyForThisRequest(status)
        // Answers the validators of a stale disk copy; without them there is nothing to reuse.
        case 304 where hop.request.validators.isEmpty: return .noBodyForThisRequest(status)
        case 304: return nil
        // A redirect that was followable became a new hop before this.
        case 300..<400: return .unfollowableRedirect(status)
        default: return nil
        }
    }

    /// A header of the last response (after redirects), as libcurl kept it.
    func header(_ name: String) -> String? {
        var found: UnsafeMutablePointer<curl_header>?
        guard curl_easy_header(easy, name, 0, UInt32(CURLH_HEADER), -1, &found) == CURLHE_OK,
              let value = found?.pointee.value else { return nil }
        return String(cString: value)
    }

    /// A list-valued header of the last response, every line of it joined as one
    /// (RFC 9110 §5.3): a second `Vary` or `Cache-Control` line counts too.
    private func listHeader(_ name: String) -> String? {
        var found: UnsafeMutablePointer<curl_header>?
        guard curl_easy_header(easy, name, 0, UInt32(CURLH_HEADER), -1, &found) == CURLHE_OK, let first = found?.pointee
        else { return nil }
        var values: [String] = []
        for index in 0..<first.amount {
            if curl_easy_header(easy, name, index, UInt32(CURLH_HEADER), -1, &found) == CURLHE_OK,
               let value = found?.pointee.value {
                values.append(String(cString: value))
            }
        }
        return values.joined(separator: ", ")
    }
}