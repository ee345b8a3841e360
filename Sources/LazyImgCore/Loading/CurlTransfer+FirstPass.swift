import CCurl

/// A request that may end at a file's first pass, a progressive JPEG's DC scans or
/// an interlaced PNG's first Adam7 pass (`DataRequest.firstPassBox`), to an origin
/// known to serve such files and byte ranges (`FirstPassHints`): its first hop asks
/// for the file's start, `Range: bytes=0-<hop.firstRange - 1>`. (Elsewhere the body
/// comes whole and is watched, CurlTransfer+FirstPassWatch.) When that 206 ends,
/// `FirstPass` reads what came:
/// - enough for the box: the response is those bytes up to the first pass's end, as
///   `FirstPass.decodable` makes them, and all the bytes that came are left for a
///   larger box to continue (with `Range` and `If-Range`, as a stopped download is);
/// - more needed: the next hop asks for the bytes up to where the first pass should
///   end (the JPEG's scan headers say; a PNG's pass-1 rows so far are extrapolated),
///   with `If-Range`, and reads again (at most `maxStartHops` in all);
/// - not a file the start can serve (baseline, not interlaced, a larger scale): the
///   next hop asks for the rest, and the response is the whole body.
/// A 200 (the server ignores Range) is the whole body, watched as any other.
extension CurlTransfer {
    /// Hops that ask for more of the start before the rest is fetched whole.
    static let maxStartHops = 4

    /// Configure's part: a request for a box that may need only the DC scans asks for
    /// the start when the hints size it, unless it continues a kept body (which then
    /// says how far to ask).
    func askForTheStart() {
        guard case .none = resumption, hop.request.firstPassBox != nil, hop.startHops == 0,
              let end = hop.firstRange else { return }
        resumption = .askedStart(upTo: end)
    }

    /// The answer's headers ended for a hop that asked for the start. False aborts
    /// it, to start again from the first byte without Range.
    func startDidArrive(askedUpTo end: Int) -> Bool {
        let status = lastHTTPStatus
        guard status == 206 || status == 416 else {
            // A 200 is the whole body; an error or a redirect is handled as ever.
            ignoredRange = status == 200
            resumption = .none
            return true
        }
        guard status == 206, let range = ContentRange(header("Content-Range")), range.first == 0,
              let total = range.complete, range.last == min(end, total) - 1 else {
            resumption = .restartNeeded
            return false
        }
        resumption = .receivingStart(
            total: total,
            validator: ResumableResponse.ifRangeValidator(etag: header("ETag"), lastModified: header("Last-Modified"),
                                                          date: header("Date")))
        return true
    }

    /// How a hop that brought part of a JPEG's start goes on: nil when it was not
    /// such a hop, or it brought the whole file (then it is answered as a 200).
    func startStep(finishedWith code: CURLcode) -> Outcome? {
        guard code == CURLE_OK, let box = hop.request.firstPassBox else { return nil }
        let total: Int, validator: String?
        switch resumption {
        case .receivingStart(let length, let strong): (total, validator) = (length, strong)
        case .appending(let partial) where hop.askedEnd != nil: (total, validator) = (partial.length, partial.validator)
        default: return nil
        }
        let bytes = body.kept
        guard bytes.count < total else { return nil }
        let verdict = hop.startHops + 1 < Self.maxStartHops ? FirstPass.examine(bytes, for: box) : .needWholeFile
        if case .suffice(let end) = verdict {
            var response = DataResponse(result: .success(FirstPass.decodable(bytes, upTo: end)), httpStatus: 200,
                                        bytesReceived: receivedInAll, cacheHeaders: cacheHeaders)
            response.resumedBytes = resumedBytes
            response.endsAtFirstPass = true
            guard let validator else { return .finished(response) }
            return .finishedLeaving(response, PartialBody(bytes: body.take(), servedBy: hop.request.url,
                                                          validator: validator, length: total))
        }
        var next = hop
        next.continuedBytes = hop.continuedBytes.addingClamped(bytesReceived)
        next.startHops += 1
        next.deadline = deadline
        guard let validator else {
            // More may not be asked for without a validator: the whole file, from its start.
            next.partial = nil
            next.askedEnd = nil
            next.request.firstPassBox = nil
            next.earlierBytes = hop.earlierBytes.addingClamped(next.continuedBytes)
            next.continuedBytes = 0
            return .next(next)
        }
        next.partial = PartialBody(bytes: body.take(), servedBy: hop.request.url, validator: validator, length: total)
        if case .needMore(let upTo) = verdict {
            next.askedEnd = min(total, max(upTo, bytes.count + 1))
        } else {
            next.askedEnd = nil
            next.request.firstPassBox = nil
        }
        return .next(next)
    }
}

extension CurlTransfer.Hop {
    /// A request that may end at the DC scans, continuing a kept start (its row left
    /// while it came): the answer when the kept bytes hold the DC scans already;
    /// else the hop asks only for the bytes up to where the scan headers say they
    /// end (or for all the rest, when the box needs the whole file).
    mutating func continueKeptStart() -> DataResponse? {
        guard let box = request.firstPassBox, let partial, partial.servedBy == request.url else { return nil }
        startHops = 1
        switch FirstPass.examine(partial.bytes, for: box) {
        case .suffice(let end):
            var answer = DataResponse(result: .success(FirstPass.decodable(partial.bytes, upTo: end)), httpStatus: 200)
            answer.resumedBytes = end
            answer.endsAtFirstPass = true
            return answer
        case .needMore(let upTo):
            askedEnd = min(partial.length, max(upTo, partial.bytes.count + 1))
        case .needWholeFile:
            request.firstPassBox = nil
        }
        return nil
    }
}
