import CCurl

/// One hop and a kept partial body (`PartialBody`): the hop to the URL that served
/// it asks for the rest with `Range` and `If-Range`; the answer decides, when its
/// headers end, what the body becomes:
/// - 206 whose Content-Range is exactly the rest: appended to the kept bytes;
/// - 200 (the validator changed, or the server ignores Range), or any other answer:
///   the kept bytes go, and the answer is handled as if nothing had been asked;
/// - 206 for any other bytes, or 416: the hop stops and starts again from the
///   first byte, without Range. A body is never spliced from parts that do not fit.
/// A hop stopped before its end (cancelled because its row left, or cut off by the
/// network) may leave its body's start for the next download (`takePartialBody`).
extension CurlTransfer {
    enum Resumption {
        /// Nothing asked: no partial body, or it belongs to another hop's URL.
        case none
        /// Asked for the rest; the answer's headers have not ended.
        case asked(PartialBody)
        /// A 206 for the rest: the body continues the partial one.
        case appending(PartialBody)
        /// Asked for the file's first bytes, up to `end` (CurlTransfer+FirstPass).
        case askedStart(upTo: Int)
        /// A 206 for the file's first bytes: `total` long in all, and what If-Range may
        /// carry when more is asked for (nil: nothing may be).
        case receivingStart(total: Int, validator: String?)
        /// The answer cannot continue the partial body: start again.
        case restartNeeded

        var isAppending: Bool {
            if case .appending = self { true } else { false }
        }

        /// Whether a 206 is the answer asked for, whose body is kept.
        var takes206: Bool {
            switch self {
            case .appending, .receivingStart: true
            default: false
            }
        }

        /// Whether this hop took the partial body: later hops never get it.
        var wasOffered: Bool {
            if case .none = self { false } else { true }
        }

        func rangeHeaders(upTo end: Int?) -> [String] {
            switch self {
            case .asked(let partial): partial.rangeHeaders(upTo: end)
            case .askedStart(let end): ["Range: bytes=0-\(end - 1)"]
            default: []
            }
        }
    }

    /// Configure's part: when the hop goes to the URL that served the partial body
    /// and the whole body fits in what is left of the limit, the body starts with
    /// the kept bytes and the request asks for the rest.
    func offerPartialBody(limit: Int) {
        guard let partial = hop.partial, partial.servedBy == hop.request.url,
              limit == 0 || partial.length <= limit else { return }
        body.continuing(partial.bytes)
        resumption = .asked(partial)
    }

    /// The final headers ended (header callback). False aborts the hop, to start
    /// it again from the first byte.
    func answerDidArrive() -> Bool {
        if case .askedStart(let end) = resumption { return startDidArrive(askedUpTo: end) }
        guard case .asked(let partial) = resumption else { return true }
        let status = lastHTTPStatus
        if status == 206, ContentRange(header("Content-Range"))?.continues(partial, upTo: hop.askedEnd) == true {
            resumption = .appending(partial)
            return true
        }
        if status == 206 || status == 416 {
            resumption = .restartNeeded
            return false
        }
        body.dropPrefix(owner: ObjectIdentifier(self))
        resumption = .none
        return true
    }

    /// The same hop again from the first byte, when the answer could not continue
    /// the partial body: a Content-Range for other bytes, or a body that ended at
    /// another length than announced. nil when the hop ended otherwise.
    func hopFromTheFirstByte(finishedWith code: CURLcode) -> Hop? {
        switch resumption {
        case .restartNeeded: break
        case .appending(let partial) where code == CURLE_OK
                && body.prefixLength.addingClamped(bytesReceived) != (hop.askedEnd ?? partial.length): break
        case .receivingStart(let total, _) where code == CURLE_OK && bytesReceived > total: break
        default: return nil
        }
        var again = hop
        again.partial = nil
        again.askedEnd = nil
        // From the first byte, the whole file: asking for its start again could end alike.
        again.request.firstPassBox = nil
        again.continuedBytes = 0
        again.earlierBytes = hop.earlierBytes.addingClamped(hop.continuedBytes).addingClamped(bytesReceived)
        again.deadline = deadline
        return again
    }

    /// The start of the body, for a later download to continue, taken out of the
    /// transfer; nil when nothing worth keeping came. Called when the hop stopped
    /// before its end: cancelled, or cut off by the network.
    func takePartialBody() -> PartialBody? {
        switch resumption {
        case .restartNeeded, .askedStart:
            return nil
        case .receivingStart(let total, let validator):
            guard let validator, bytesReceived > 0, bytesReceived < total else { return nil }
            return PartialBody(bytes: body.take(), servedBy: hop.request.url, validator: validator, length: total)
        case .asked(let partial):
            // Stopped before the answer came: the kept bytes are as they were.
            body.dropPrefix(owner: ObjectIdentifier(self))
            resumption = .none
            return partial
        case .appending(let partial):
            // The server answered this validator with a 206: still the one to send.
            guard body.prefixLength.addingClamped(bytesReceived) < partial.length else { return nil }
            return PartialBody(bytes: body.take(), servedBy: partial.servedBy, validator: partial.validator,
                               length: partial.length)
        case .none:
            guard headersEnded, lastHTTPStatus == 200, let length = body.announced, bytesReceived > 0,
                  bytesReceived < length, ResumableResponse.acceptsByteRanges(header("Accept-Ranges")),
                  let validator = ResumableResponse.ifRangeValidator(etag: header("ETag"),
                                                                     lastModified: header("Last-Modified"),
                                                                     date: header("Date"))
            else { return nil }
            return PartialBody(bytes: body.take(), servedBy: hop.request.url, validator: validator, length: length)
        }
    }
}
