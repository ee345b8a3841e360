/// Whether the start of a JPEG file is enough for a box, read from its markers.
///
/// At DCT scale 1/8 libjpeg reads one coefficient per 8x8 block, the DC; a
/// progressive file sends every block's DC first, in one scan or one per component
/// (Ss = 0, Ah = 0), before any AC scan. So when the decoder would decode a
/// progressive file at 1/8 for the box, the bytes up to the end of those scans
/// (`decodable`) decode to the picture the whole file would give there, short of the
/// DC bits a later refinement scan (Ah > 0) would add.
///
/// Verdicts (`FirstPass.Verdict`): `.suffice(end:)`, the first `end` bytes hold every
/// DC scan, and those bytes with an EOI decode for the box; `.needMore(upTo:)`, the
/// DC scans go on past the bytes present (a guess from the frame's size when its
/// header has come, else a larger start); `.needWholeFile`, baseline,
/// arithmetic-coded, decoded at more than 1/8, an unusual scan order, or not a JPEG
/// the markers can follow.
public enum JPEGDCScans {
    public typealias Verdict = FirstPass.Verdict

    /// The file to decode for a `.suffice(end:)` verdict: the start, ended as
    /// `JPEGZeroACScans` ends it.
    public static func decodable(_ bytes: [UInt8], upTo end: Int) -> [UInt8] {
        JPEGZeroACScans.ending(bytes[..<min(end, bytes.count)])
    }

    /// How many bytes a guess adds past a header segment that has not fully arrived.
    static let segmentSlack = 8 << 10

    public static func examine(_ bytes: [UInt8], for options: DecodeOptions) -> Verdict {
        bytes.withUnsafeBufferPointer { examine($0, for: options) }
    }

    static func examine(_ bytes: UnsafeBufferPointer<UInt8>, for options: DecodeOptions) -> Verdict {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8, options.target != .original else {
            return .needWholeFile
        }
        var markers = JPEGMarkers(bytes)
        var frame: JPEGFrameHeader?
        var startsOfDC = Set<UInt8>()
        while true {
            let segmentStart = markers.offset
            guard let segment = markers.next() else {
                // A segment not all here, or damage the next bytes cannot mend (caught
                // by the caller's limit on how many times it asks for more).
                return .needMore(upTo: max(bytes.count, segmentStart).addingClamped(segmentSlack))
            }
            if JPEGFrameKind.isStartOfFrame(segment.marker) {
                guard segment.marker == 0xC2, let header = JPEGFrameHeader(segment), frame == nil,
                      decodesAtOneEighth(header, bytes: bytes, options: options) else { return .needWholeFile }
                frame = header
            } else if segment.marker == 0xDA {
                guard let frame, let components = dcFirstScanComponents(segment.payload) else { return .needWholeFile }
                let scanData = segmentStart
                // The scan's data runs to the bytes' end: its end has not come yet.
                guard markers.offset < bytes.count else {
                    return .needMore(upTo: guessedEndOfDC(frame, scanStartedAt: scanData, have: bytes.count))
                }
                startsOfDC.formUnion(components)
                if frame.components.allSatisfy({ startsOfDC.contains($0.id) }) {
                    return .suffice(end: markers.offset)
                }
            } else if segment.marker == 0xD9 {
                return .needWholeFile
            }
        }
    }

    /// The component ids of a DC first scan (Ss = 0, Se = 0, Ah = 0); nil for any
    /// other scan, or a header too short.
    private static func dcFirstScanComponents(_ payload: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard let count = payload.first.map(Int.init), count > 0, payload.count >= 1 + 2 * count + 3 else { return nil }
        let spectralStart = payload[1 + 2 * count], spectralEnd = payload[2 + 2 * count]
        let high = payload[3 + 2 * count] >> 4
        guard spectralStart == 0, spectralEnd == 0, high == 0 else { return nil }
        return (0..<count).map { payload[1 + 2 * $0] }
    }

    /// Whether the decoder picks scale 1/8 for this frame and box, as `JPEGDecoder`
    /// decides it (from the displayed size, EXIF orientation included).
    private static func decodesAtOneEighth(_ frame: JPEGFrameHeader, bytes: UnsafeBufferPointer<UInt8>,
                                           options: DecodeOptions) -> Bool {
        guard frame.width > 0, frame.height > 0 else { return false }
        let orientation = JPEGDecoder.exifOrientation(in: bytes)
        let displayed = orientation.displayed(width: frame.width, height: frame.height)
        let geometry = OutputGeometry(displayedWidth: displayed.width, height: displayed.height,
                                      orientation: orientation, options: options)
        let factor = JPEGDecoder.scalingFactor(width: frame.width, height: frame.height, covering: geometry.storedScaled)
        return factor.numerator * 8 == factor.denominator
    }

    /// Where the DC scans should end: about 6 bits per block past the scan's start
    /// (a Huffman-coded DC difference is rarely longer), and never less than half
    /// as much again as what came.
    private static func guessedEndOfDC(_ frame: JPEGFrameHeader, scanStartedAt start: Int, have: Int) -> Int {
        let maxH = frame.components.map(\.horizontal).max() ?? 1, maxV = frame.components.map(\.vertical).max() ?? 1
        let blocksAcross = (frame.width + 8 * maxH - 1) / (8 * maxH), blocksDown = (frame.height + 8 * maxV - 1) / (8 * maxV)
        // Sides are at most 65535 and factors at most 4, so this fits easily.
        let blocks = frame.components.reduce(0) { $0 + blocksAcross * $1.horizontal * blocksDown * $1.vertical }
        return max(start + blocks * 6 / 8 + 1024, have + have / 2)
    }
}
