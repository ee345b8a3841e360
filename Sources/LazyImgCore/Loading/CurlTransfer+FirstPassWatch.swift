import CCurl

/// A request that may end at a file's first pass (`DataRequest.firstPassBox`) whose
/// body comes whole from its first byte (an origin not yet known to serve such files
/// and byte ranges, `FirstPassHints`, or a server that answered the Range with a
/// 200): one request, as without this, watched as it arrives (`FirstPassWatch`).
/// - The first pass serves the box (and every box sharing the download,
///   `DataRequest.sharedBoxes`): the write callback stops the transfer there, and
///   the answer is `FirstPass.decodable` of the bytes, which ends at the first pass
///   (`endsAtFirstPass`). All the bytes that came are kept for a larger box to
///   continue (`Range` with `If-Range`) when the response allows it, as a cancelled
///   download's are (`takePartialBody`); else they go.
/// - The box needs the whole file (a baseline JPEG, a PNG not interlaced, a box
///   larger than the first pass): the watch ends, and the body comes on untouched.
/// A body that came whole before the first pass was known is the answer as it is.
extension CurlTransfer {
    /// The final headers ended: a 200 bringing the whole body is watched.
    func watchForFirstPass() {
        guard let box = hop.request.firstPassBox, case .none = resumption, lastHTTPStatus == 200 else { return }
        firstPassWatch = FirstPassWatch(box: box)
    }

    /// The write callback's part, after bytes were taken.
    func lookForFirstPass() {
        guard var watch = firstPassWatch else { return }
        let look = watch.arrived(body.kept)
        firstPassWatch = watch
        settle(look)
        quietLookAt = firstPassWatch.map { $0.wantsQuietLook(at: body.kept.count) } == true
            ? MonotonicClock().nowMilliseconds.addingClamped(FirstPassWatch.quietMilliseconds) : nil
    }

    /// Network thread, outside libcurl's callbacks: nothing came for a while. True
    /// when the look found the first pass: the loop then ends the transfer
    /// (`firstPassOutcome`).
    func lookAfterQuiet() -> Bool {
        quietLookAt = nil
        guard var watch = firstPassWatch else { return false }
        let look = watch.quiet(body.kept)
        firstPassWatch = watch
        settle(look)
        return firstPassStop != nil
    }

    private func settle(_ look: FirstPassWatch.Look) {
        switch look {
        case .wait:
            return
        case .wholeFile:
            firstPassWatch = nil
        case .suffice(let end):
            firstPassWatch = nil
            // All here already: the whole body is the better answer.
            if let announced = body.announced, body.received >= announced { return }
            firstPassStop = endServingEverySharer(end)
        }
    }

    /// Where the first pass ends for every box waiting on this download, nil when one
    /// of them needs more than its first pass.
    private func endServingEverySharer(_ end: Int) -> Int? {
        guard let boxes = hop.request.sharedBoxes?() else { return end }
        var last = end
        for box in Set(boxes) where box != hop.request.firstPassBox {
            guard let box, case .suffice(let other) = FirstPass.examine(body.kept, for: box) else { return nil }
            last = max(last, other)
        }
        return last
    }

    /// The answer of a transfer stopped at its first pass; or of one cut off after it
    /// came (a body shorter than announced), looked at once more. nil otherwise.
    func firstPassOutcome(finishedWith code: CURLcode) -> Outcome? {
        if firstPassStop == nil, firstPassWatch != nil, code == CURLE_PARTIAL_FILE || code == CURLE_RECV_ERROR {
            _ = lookAfterQuiet()
        }
        guard let end = firstPassStop else { return nil }
        var response = DataResponse(result: .success(FirstPass.decodable(body.kept, upTo: end)), httpStatus: 200,
                                    bytesReceived: receivedInAll, cacheHeaders: cacheHeaders)
        response.endsAtFirstPass = true
        guard let partial = takePartialBody() else { return .finished(response) }
        return .finishedLeaving(response, partial)
    }

    /// Whether this hop's answer showed its server serving byte ranges: a 206 for a
    /// Range asked, or a 200 that says `Accept-Ranges: bytes` (and did not ignore one).
    var servesRanges: Bool {
        resumption.takes206 || (!ignoredRange && ResumableResponse.acceptsByteRanges(header("Accept-Ranges")))
    }
}
