/// What the files of an origin said about their first pass (a progressive JPEG's DC
/// scans, an interlaced PNG's first Adam7 pass), per box: whether a request for that
/// box should ask for a file's start at all, and how many bytes.
///
/// Every body fetched for a box that may need only its first pass is read
/// (`FirstPass`), also when it came whole: a site of baseline JPEGs or
/// non-interlaced PNGs then costs a Range request and a second one for the rest only
/// for its first file, and its next files come whole in one request, as without
/// this; a site that turns progressive is noticed on the next file it sends. The
/// first range of a progressive site is sized from the first passes' ends seen there.
///
/// Network thread only, like the transfers it sizes.
struct FirstPassHints {
    struct Key: Hashable {
        let origin: Origin
        let box: DecodeOptions

        init?(_ request: DataRequest) {
            guard let box = request.firstPassBox, let origin = Origin(request.url) else { return nil }
            self.origin = origin
            self.box = box
        }
    }

    /// Origins and boxes remembered; past it the table starts again.
    static let capacity = 256
    /// The first range's bounds: a guess never asks for less, nor for more.
    static let smallestRange = 4 << 10, largestRange = 64 << 10

    /// nil: the last file needed the whole body. Else the largest DC scans' end
    /// seen lately (an average that forgets slowly would let every other file take
    /// a second hop).
    private var byKey: [Key: Int?] = [:]

    /// How many bytes the first range asks for; nil: fetch the whole file.
    func firstRange(for key: Key) -> Int? {
        guard let hint = byKey[key] else { return CurlTransfer.firstRangeBytes }
        guard let end = hint else { return nil }
        // A quarter more than the longest seen, and the EOI-bound marker after it.
        return min(Self.largestRange, max(Self.smallestRange, end.addingClamped(end / 4).addingClamped(512)))
    }

    /// A file's verdict for its box: `end` where its DC scans ended, nil when it
    /// needed the whole body.
    mutating func learn(_ key: Key, firstPassEnd end: Int?) {
        if byKey[key] == nil && byKey.count >= Self.capacity { byKey.removeAll() }
        guard let end else {
            byKey[key] = .some(nil)
            return
        }
        // Lately: the longest of the last one and this one, decaying by an eighth.
        let previous = (byKey[key] ?? nil).map { $0 - $0 / 8 } ?? 0
        byKey[key] = max(end, previous)
    }

    /// Reads a body that came for `key`'s box: the whole file, or its DC scans' end.
    mutating func learn(_ key: Key, body: [UInt8]) {
        if case .suffice(let end) = FirstPass.examine(body, for: key.box) {
            learn(key, firstPassEnd: end)
        } else {
            learn(key, firstPassEnd: nil)
        }
    }
}
