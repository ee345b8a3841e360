/// The first frame of an animated WebP, found by walking the RIFF chunks.
///
/// libwebp's WebPAnimDecoder holds two full canvases (the frame being drawn and the
/// one before it) and its demuxer a record per frame, so a 136-byte file declaring a
/// 7000 x 7000 canvas cost 590 MB. Frame 1 is all a cell shows: it is drawn on a
/// transparent canvas at its offset, with no blending (WebPAnimDecoderGetNext treats
/// the first frame as a key frame), so knowing where it sits and where its bitstream
/// is suffices. Nothing is allocated here.
struct WebPFirstFrame {
    let left: Int
    let top: Int
    let width: Int
    let height: Int
    /// The frame's chunks after the ANMF header (ALPH, then VP8 or VP8L), as WebPDecode
    /// takes them.
    let bitstream: UnsafeBufferPointer<UInt8>
    /// Whether a second ANMF chunk follows.
    let anotherFrameFollows: Bool

    /// Nil unless `bytes` is a RIFF WebP with a complete ANMF chunk.
    init?(in bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count >= 12 else { return nil }
        // The RIFF payload ends where its size says, or at the end of the bytes.
        let riffEnd = min(bytes.count, 8 + Self.littleEndian(bytes, at: 4, count: 4))
        var offset = 12
        var first: (left: Int, top: Int, width: Int, height: Int, bitstream: UnsafeBufferPointer<UInt8>)?
        while offset + 8 <= riffEnd {
            let size = Self.littleEndian(bytes, at: offset + 4, count: 4)
            let payloadStart = offset + 8
            // Sizes are 32-bit and offsets below 2^32, so these sums cannot overflow. A
            // chunk cut short after frame 1 is a later frame's problem.
            guard size <= riffEnd - payloadStart else {
                if first == nil { return nil }
                break
            }
            let payloadEnd = payloadStart + size
            if Self.isANMF(bytes, at: offset) {
                // ANMF: X/2, Y/2, width - 1, height - 1, duration (24 bits each), flags.
                guard size >= 16 else { return nil }
                if first != nil {
                    break
                }
                first = (left: 2 * Self.littleEndian(bytes, at: payloadStart, count: 3),
                         top: 2 * Self.littleEndian(bytes, at: payloadStart + 3, count: 3),
                         width: 1 + Self.littleEndian(bytes, at: payloadStart + 6, count: 3),
                         height: 1 + Self.littleEndian(bytes, at: payloadStart + 9, count: 3),
                         bitstream: UnsafeBufferPointer(rebasing: bytes[(payloadStart + 16)..<payloadEnd]))
            }
            offset = payloadEnd + (size & 1)  // chunks are padded to even sizes
        }
        guard let first else { return nil }
        left = first.left
        top = first.top
        width = first.width
        height = first.height
        bitstream = first.bitstream
        anotherFrameFollows = offset + 8 <= riffEnd && Self.isANMF(bytes, at: offset)
    }

    private static func isANMF(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> Bool {
        bytes[offset] == 0x41 && bytes[offset + 1] == 0x4E && bytes[offset + 2] == 0x4D && bytes[offset + 3] == 0x46
    }

    private static func littleEndian(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int, count: Int) -> Int {
        (0..<count).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
    }
}
