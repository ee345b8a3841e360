/// Finds the frames of a GIF by walking its blocks, without decoding any pixels.
///
/// A GIF is a header, a logical screen (with an optional global colour table), then
/// blocks: extensions (0x21), images (0x2C) and the trailer (0x3B). Extensions and
/// image data are chains of sub-blocks, each a length byte and that many bytes, ended
/// by a zero length, so an image's data is skipped without running its LZW. The last
/// Graphic Control Extension before an image gives its delay, disposal and
/// transparent index; a NETSCAPE2.0 (or ANIMEXTS1.0) application extension gives the
/// loop count.
///
/// The walk stops at the trailer, at the first block that is cut short or is not a
/// block, at a frame over `maxPixels`, or at `AnimationSource.maxFrames`: the frames
/// before are played. Every step consumes at least one byte, so it ends.
enum GIFFrameIndex {
    static func source(_ bytes: [UInt8], limits: DecodeLimits) -> AnimationSource? {
        bytes.withUnsafeBufferPointer { index($0, limits: limits) }
            .map { found in
                AnimationSource(format: .gif, bytes: bytes, canvasWidth: found.canvas.width,
                                canvasHeight: found.canvas.height, headerEnd: found.headerEnd, frames: found.frames,
                                loopCount: found.loopCount)
            }
    }

    private struct Found {
        var canvas: (width: Int, height: Int)
        var headerEnd: Int
        var frames: [AnimationFrame]
        var loopCount: Int
    }

    /// What a Graphic Control Extension says of the image after it.
    private struct Control {
        var duration = AnimationSource.playedDuration(milliseconds: 0)
        var disposal = AnimationFrame.Disposal.keep
        var transparentIndex: Int16 = -1
    }

    private static func index(_ b: UnsafeBufferPointer<UInt8>, limits: DecodeLimits) -> Found? {
        guard b.count >= 13 else { return nil }
        let screenWidth = word(b, 6), screenHeight = word(b, 8)
        var position = 13 + colourTableBytes(b[10])
        guard position <= b.count else { return nil }
        let headerEnd = position
        var frames: [AnimationFrame] = []
        var control = Control()
        // No NETSCAPE extension: browsers play the animation once.
        var loopCount: Int?
        walk: while position < b.count, frames.count < AnimationSource.maxFrames {
            switch b[position] {
            case 0x21:
                guard position + 2 < b.count else { break walk }
                let label = b[position + 1]
                let first = position + 2
                if label == 0xF9, let gce = block(b, at: first), gce.count >= 4 {
                    control = Control(duration: AnimationSource.playedDuration(milliseconds: 10 * word(b, gce.lowerBound + 1)),
                                      disposal: disposal(b[gce.lowerBound]),
                                      transparentIndex: b[gce.lowerBound] & 1 != 0 ? Int16(b[gce.lowerBound + 3]) : -1)
                } else if label == 0xFF, loopCount == nil, let count = loopExtension(b, at: first) {
                    loopCount = count
                }
                guard let next = skipSubBlocks(b, from: first) else { break walk }
                position = next
            case 0x2C:
                guard position + 10 <= b.count else { break walk }
                let left = word(b, position + 1), top = word(b, position + 3)
                let width = word(b, position + 5), height = word(b, position + 7)
                // The LZW code size byte, then the data's sub-blocks.
                let data = position + 10 + colourTableBytes(b[position + 9]) + 1
                guard width > 0, height > 0, width * height <= limits.maxPixels, data <= b.count,
                      let end = skipSubBlocks(b, from: data)
                else { break walk }
                frames.append(AnimationFrame(left: Int32(left), top: Int32(top), width: Int32(width), height: Int32(height),
                                             duration: control.duration, disposal: control.disposal, blends: true,
                                             transparentIndex: control.transparentIndex, dataStart: position,
                                             dataEnd: end))
                control = Control()
                position = end
            default:
                // The trailer, or bytes that are no block.
                break walk
            }
        }
        guard let first = frames.first else { return nil }
        // A 0x0 screen takes the first frame's extent, as GIFDecoder draws frame 1.
        let canvas = (width: screenWidth > 0 ? screenWidth : Int(first.left + first.width),
                      height: screenHeight > 0 ? screenHeight : Int(first.top + first.height))
        guard canvas.width * canvas.height <= limits.maxPixels else { return nil }
        // The NETSCAPE count is the repeats after the first play (0: forever), as
        // browsers read it.
        let plays = loopCount.map { $0 == 0 ? 0 : $0 + 1 } ?? 1
        return Found(canvas: canvas, headerEnd: headerEnd, frames: frames, loopCount: plays)
    }

    /// A 16-bit little-endian field.
    private static func word(_ b: UnsafeBufferPointer<UInt8>, _ offset: Int) -> Int {
        Int(b[offset]) | Int(b[offset + 1]) << 8
    }

    /// The colour table a packed byte announces: 3 * 2^(n + 1) bytes when its top bit is set.
    private static func colourTableBytes(_ packed: UInt8) -> Int {
        packed & 0x80 != 0 ? 3 << (Int(packed & 7) + 1) : 0
    }

    private static func disposal(_ packed: UInt8) -> AnimationFrame.Disposal {
        switch (packed >> 2) & 7 {
        case 2: .clear
        case 3: .restore
        default: .keep
        }
    }

    /// The data of the sub-block at `offset`, when it is all there.
    private static func block(_ b: UnsafeBufferPointer<UInt8>, at offset: Int) -> Range<Int>? {
        guard offset < b.count else { return nil }
        let end = offset + 1 + Int(b[offset])
        return end <= b.count ? (offset + 1)..<end : nil
    }

    /// The loop count of a NETSCAPE2.0 or ANIMEXTS1.0 extension starting at `offset`.
    private static func loopExtension(_ b: UnsafeBufferPointer<UInt8>, at offset: Int) -> Int? {
        guard let name = block(b, at: offset), name.count == 11 else { return nil }
        let text = Array(b[name])
        guard text == Array("NETSCAPE2.0".utf8) || text == Array("ANIMEXTS1.0".utf8),
              let data = block(b, at: name.upperBound), data.count >= 3, b[data.lowerBound] == 1
        else { return nil }
        return word(b, data.lowerBound + 1)
    }

    /// Past the zero-length sub-block ending the chain at `offset`; nil when the bytes
    /// end first.
    private static func skipSubBlocks(_ b: UnsafeBufferPointer<UInt8>, from offset: Int) -> Int? {
        var position = offset
        while position < b.count {
            let length = Int(b[position])
            position += 1 + length
            if length == 0 { return position }
        }
        return nil
    }
}
