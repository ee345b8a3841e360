/// The network thread's watch over a body fetched whole for a box that may need only
/// the file's first pass (`DataRequest.firstPassBox`): when to look at the bytes so
/// far, and what a look says. A look is `FirstPass.examine`, which reads the start
/// from its first byte, so looks are spaced to keep a body's work linear in its
/// length:
/// - a JPEG is looked at each time a scan has come whole (`JPEGScanProgress`, which
///   reads each byte once however the body arrives), at most `maxJPEGLooks` times;
///   a baseline file ends the watch at its frame header, with no look;
/// - a PNG once its IHDR has come (which says whether it is interlaced), then each
///   time its bytes have grown by an eighth: where pass 1 ends is known only by
///   inflating it. And after a quiet spell with bytes not yet looked at (`quiet`,
///   at most `maxQuietLooks` times): a server that pauses just after pass 1 is not
///   waited for.
/// Anything else ends the watch at its first bytes.
struct FirstPassWatch {
    enum Look: Equatable {
        /// Nothing to say yet.
        case wait
        /// The first `end` bytes serve the box: the transfer may stop.
        case suffice(end: Int)
        /// The box needs the whole body: the watch is over.
        case wholeFile
    }

    private enum Kind { case unknown, jpeg, png }

    let box: DecodeOptions
    private var kind = Kind.unknown
    private var scans = JPEGScanProgress()
    private var looks = 0
    private var quietLooks = 0
    /// The body's length at the last look.
    private var lookedAt = 0
    private var nextPNGLook = Self.pngHeaderBytes

    /// A DC scan per component of a 4-component file, and room for a few headers.
    static let maxJPEGLooks = 8
    static let maxQuietLooks = 4
    /// No byte for this long, with bytes not looked at: a PNG is looked at.
    static let quietMilliseconds: Int64 = 20
    /// The signature and the whole IHDR chunk.
    private static let pngHeaderBytes = 33
    private static let smallestPNGStep = 512

    init(box: DecodeOptions) {
        self.box = box
    }

    /// The body has grown to `bytes`.
    mutating func arrived(_ bytes: [UInt8]) -> Look {
        if kind == .unknown {
            guard bytes.count >= PreviewPrefixes.pngSignature.count else { return .wait }
            if bytes[0] == 0xFF && bytes[1] == 0xD8 {
                kind = .jpeg
            } else if bytes.starts(with: PreviewPrefixes.pngSignature) {
                kind = .png
            } else {
                return .wholeFile
            }
        }
        switch kind {
        case .jpeg:
            guard bytes.withUnsafeBufferPointer({ scans.advance(over: $0) }) != nil else {
                return scans.hasEnded ? .wholeFile : .wait
            }
        case .png, .unknown:
            guard bytes.count >= nextPNGLook else { return .wait }
        }
        return look(at: bytes)
    }

    /// Whether a look after a quiet spell could say more than the last one did.
    func wantsQuietLook(at count: Int) -> Bool {
        kind == .png && count > lookedAt && quietLooks < Self.maxQuietLooks
    }

    /// No byte came for `quietMilliseconds`: a PNG is looked at once more.
    mutating func quiet(_ bytes: [UInt8]) -> Look {
        guard wantsQuietLook(at: bytes.count) else { return .wait }
        quietLooks += 1
        return look(at: bytes)
    }

    private mutating func look(at bytes: [UInt8]) -> Look {
        looks += 1
        lookedAt = bytes.count
        switch FirstPass.examine(bytes, for: box) {
        case .suffice(let end): return .suffice(end: end)
        case .needWholeFile: return .wholeFile
        case .needMore:
            if kind == .jpeg && looks >= Self.maxJPEGLooks { return .wholeFile }
            nextPNGLook = bytes.count.addingClamped(max(bytes.count / 8, Self.smallestPNGStep))
            return .wait
        }
    }
}
