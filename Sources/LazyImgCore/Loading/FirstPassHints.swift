/// What the files of an origin said about their first pass (a progressive JPEG's DC
/// scans, an interlaced PNG's first Adam7 pass), per box: whether a request for that
/// box should ask for a file's start with `Range`, and how many bytes.
///
/// Until an origin's files have shown both that their first pass serves the box and
/// that the origin serves byte ranges, its files come whole, each in one request as
/// without this, and are watched as they arrive (CurlTransfer+FirstPassWatch): a
/// progressive one stops at its first pass, a baseline one costs nothing more. Once
/// both are known, the next files ask for their start (fewer bytes in flight past
/// the first pass), sized from the first passes' ends seen there. A server that never
/// said `Accept-Ranges: bytes`, or answered a Range with the whole file, keeps getting
/// whole watched requests. Every body is read (`FirstPass`), also when it came
/// whole, so a site that turns baseline goes back to whole files on its next answer.
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

    private enum Hint {
        /// The last file needed the whole body.
        case wholeFile
        /// The largest first pass's end seen lately (an average that forgets slowly
        /// would let every other file take a second hop), and whether the origin
        /// serves byte ranges.
        case firstPass(end: Int, servesRanges: Bool)
    }

    /// Origins and boxes remembered; past it the table starts again.
    static let capacity = 256
    /// The first range's bounds: a guess never asks for less, nor for more.
    static let smallestRange = 4 << 10, largestRange = 64 << 10

    private var byKey: [Key: Hint] = [:]

    /// How many bytes the first range asks for; nil: fetch the whole file, watched.
    func firstRange(for key: Key) -> Int? {
        guard case .firstPass(let end, servesRanges: true) = byKey[key] else { return nil }
        // A quarter more than the longest seen, and the EOI-bound marker after it.
        return min(Self.largestRange, max(Self.smallestRange, end.addingClamped(end / 4).addingClamped(512)))
    }

    /// A file's verdict for its box: `end` where its first pass ended, nil when it
    /// needed the whole body; and whether its answer showed byte ranges served.
    mutating func learn(_ key: Key, firstPassEnd end: Int?, servesRanges: Bool) {
        if byKey[key] == nil && byKey.count >= Self.capacity { byKey.removeAll() }
        guard let end else {
            byKey[key] = .wholeFile
            return
        }
        // Lately: the longest of the last one and this one, decaying by an eighth.
        var previous = 0
        if case .firstPass(let last, _) = byKey[key] { previous = last - last / 8 }
        byKey[key] = .firstPass(end: max(end, previous), servesRanges: servesRanges)
    }

    /// Reads a body that came for `key`'s box: the whole file, or its first pass.
    mutating func learn(_ key: Key, body: [UInt8], servesRanges: Bool) {
        if case .suffice(let end) = FirstPass.examine(body, for: key.box) {
            learn(key, firstPassEnd: end, servesRanges: servesRanges)
        } else {
            learn(key, firstPassEnd: nil, servesRanges: servesRanges)
        }
    }
}
