/// The network thread's watch over a body a request wants previews of
/// (`DataRequest.onPrefix`): which starts of it are worth decoding.
///
/// - A progressive JPEG: each time a scan has come whole (`JPEGScanProgress`),
///   the bytes up to the marker after it, ended with an EOI.
/// - An interlaced PNG: where its Adam7 passes end is known only by inflating
///   the data, which is a decode's work and not this thread's, so the start is
///   offered each time it has grown by a quarter (from 4 KiB): the passes end at
///   1/64, 1/32, 1/16 ... 1/2 of the pixels, so a pass rarely ends long before an
///   offer. The decode says how many passes it holds (`PreviewDecode`).
///
/// Anything else ends the watch after its first bytes.
struct PreviewPrefixes {
    private var scans = JPEGScanProgress()
    /// nil until the PNG header has come; false for anything but an interlaced PNG.
    private var isInterlacedPNG: Bool?
    private var offeredPNGBytes = 0

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    /// The signature, the IHDR chunk's length and type, and its fields up to the
    /// interlace method (byte 28).
    private static let pngHeaderBytes = 29
    static let firstPNGOffer = 4 << 10

    /// The next start to decode, when the bytes so far make one.
    mutating func prefix(of bytes: [UInt8]) -> ReceivedPrefix? {
        if let end = bytes.withUnsafeBufferPointer({ scans.advance(over: $0) }) {
            return ReceivedPrefix(bytes: Array(bytes[..<end]) + [0xFF, 0xD9], stage: scans.completeScans)
        }
        if isInterlacedPNG == nil, bytes.count >= Self.pngHeaderBytes {
            isInterlacedPNG = bytes.starts(with: Self.pngSignature) && bytes[12..<16].elementsEqual("IHDR".utf8)
                && bytes[28] == 1
        }
        guard isInterlacedPNG == true,
              bytes.count >= max(Self.firstPNGOffer, offeredPNGBytes.addingClamped(offeredPNGBytes / 4)) else { return nil }
        offeredPNGBytes = bytes.count
        return ReceivedPrefix(bytes: bytes, stage: bytes.count)
    }
}
