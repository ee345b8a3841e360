import CCurl

/// Redirects are followed here, not by libcurl (CURLOPT_FOLLOWLOCATION is off): each
/// hop is a new transfer whose custom headers are chosen for its own origin, since
/// libcurl would send them on to any host (it drops only Authorization and Cookie),
/// and a hop may neither leave http(s) nor go from https down to http.
extension CurlTransfer {
    /// One step of a transfer: the request for this URL, where the transfer began,
    /// and what came before.
    struct Hop {
        var request: DataRequest
        let firstURL: ImageURL
        var redirects = 0
        /// Body bytes of earlier hops (redirect pages), for bytes_downloaded.
        var earlierBytes = 0
        /// When the transfer times out (monotonic milliseconds), nil for never: every
        /// hop and its name lookup share one `timeoutMilliseconds`.
        var deadline: Int64?
        /// The start of the body kept from an earlier download of the request, for
        /// the hop to the URL that served it (CurlTransfer+Resume).
        var partial: PartialBody?
        /// Where this hop's range ends (exclusive) when it asks for more of a JPEG's
        /// start (CurlTransfer+FirstPass); nil asks for all the rest.
        var askedEnd: Int?
        /// Of `partial`, the bytes this transfer's own earlier hops fetched (not
        /// resumed from an earlier download), for bytes_downloaded.
        var continuedBytes = 0
        /// How many hops asked for a JPEG's start so far.
        var startHops = 0
        /// How many bytes the first hop asks for when it asks for the file's start
        /// (`FirstPassHints`); nil fetches the body whole, watched for its first pass.
        var firstRange: Int?
        /// Where what the bodies say of their DC scans is learnt (`FirstPassHints`), for
        /// a request that may end at them; kept over every hop.
        var hintKey: FirstPassHints.Key?

        init(_ request: DataRequest, startingAt now: Int64) {
            self.request = request
            firstURL = request.url
            deadline = request.timeoutMilliseconds > 0 ? now.addingClamped(Int64(request.timeoutMilliseconds)) : nil
        }
    }

    static let maxRedirects = 5

    /// Indirect: inline, collectFinished told the cases apart by a spare bit of a
    /// payload word that valgrind saw as uninitialised (from a stack temporary of
    /// outcome(finishedWith:)), which failed memcheck-termlist; boxed, the case is
    /// read from the box pointer.
    indirect enum Outcome {
        case finished(DataResponse)
        /// A redirect's hop, or this one again from the first byte (CurlTransfer+Resume).
        case next(Hop)
        /// A response, and the body's start to keep for a larger box (CurlTransfer+FirstPass).
        case finishedLeaving(DataResponse, PartialBody)
    }

    /// How the hop ended: a response for the caller, or the next hop to start.
    func outcome(finishedWith code: CURLcode) -> Outcome {
        if let again = hopFromTheFirstByte(finishedWith: code) { return .next(again) }
        if let stopped = firstPassOutcome(finishedWith: code) { return stopped }
        if let step = startStep(finishedWith: code) { return step }
        guard code == CURLE_OK, [301, 302, 303, 307, 308].contains(lastHTTPStatus), let location = redirectURL else {
            return .finished(response(finishedWith: code))
        }
        let status = lastHTTPStatus
        let bytes = hop.earlierBytes.addingClamped(bytesReceived)
        func refuse(_ error: LoaderError) -> Outcome {
            .finished(DataResponse(result: .failure(error), httpStatus: status, bytesReceived: bytes))
        }
        // A loop or a chain too long is the server's doing, and would end the same again.
        guard hop.redirects < Self.maxRedirects else { return refuse(.protocolViolation(.tooManyRedirects)) }
        let fromHTTPS = Origin(hop.request.url)?.scheme == "https"
        guard let scheme = Origin(location)?.scheme, scheme == "https" || (scheme == "http" && !fromHTTPS) else {
            // Never onto the local disk or another protocol, never down to plain http.
            return refuse(.badURL)
        }
        var next = hop
        if resumption.wasOffered { next.partial = nil }
        next.request.url = location
        next.redirects += 1
        next.earlierBytes = bytes
        next.deadline = deadline
        return .next(next)
    }

    /// The absolute URL a 3xx answer points to, as libcurl resolved it.
    private var redirectURL: ImageURL? {
        var pointer: UnsafeMutableRawPointer?
        guard lazyimg_curl_get_pointer(easy, CURLINFO_REDIRECT_URL, &pointer) == CURLE_OK, let pointer else { return nil }
        return ImageURL(cString: pointer.assumingMemoryBound(to: CChar.self))
    }
}
