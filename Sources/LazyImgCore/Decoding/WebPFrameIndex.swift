/// Finds the frames of an animated WebP by walking its RIFF chunks, without decoding
/// any pixels: VP8X gives the canvas, ANIM the loop count, each ANMF a frame (its
/// rectangle, duration, blending and disposal, then its bitstream).
///
/// libwebp's demuxer would do this too, but it refuses the whole file for one bad
/// chunk and keeps its own record per frame beside ours. The walk stops at the first
/// chunk cut short, at a frame outside the canvas (the format forbids it) and at
/// `AnimationSource.maxFrames`; the frames before are played.
enum WebPFrameIndex {
    static func source(_ bytes: [UInt8], limits: DecodeLimits) -> AnimationSource? {
        bytes.withUnsafeBufferPointer { b -> AnimationSource? in
            guard b.count >= 30 else { return nil }
            let riffEnd = min(b.count, 8 + field(b, 4, 4))
            var canvas: (width: Int, height: Int)?
            var loopCount = 0
            var frames: [AnimationFrame] = []
            var offset = 12
            walk: while offset + 8 <= riffEnd, frames.count < AnimationSource.maxFrames {
                let size = field(b, offset + 4, 4)
                let payload = offset + 8
                // Sizes are 32-bit and offsets below 2^32: no overflow.
                guard size <= riffEnd - payload else { break walk }
                switch fourCC(b, offset) {
                case "VP8X" where size >= 10:
                    canvas = (1 + field(b, payload + 4, 3), 1 + field(b, payload + 7, 3))
                case "ANIM" where size >= 6:
                    loopCount = field(b, payload + 4, 2)
                case "ANMF" where size >= 16:
                    guard let canvas else { return nil }
                    // X/2, Y/2, width - 1, height - 1, duration (24 bits each), flags.
                    let left = 2 * field(b, payload, 3), top = 2 * field(b, payload + 3, 3)
                    let width = 1 + field(b, payload + 6, 3), height = 1 + field(b, payload + 9, 3)
                    guard left + width <= canvas.width, top + height <= canvas.height,
                          width * height <= limits.maxPixels
                    else { break walk }
                    let flags = b[payload + 15]
                    frames.append(AnimationFrame(
                        left: Int32(left), top: Int32(top), width: Int32(width), height: Int32(height),
                        duration: AnimationSource.playedDuration(milliseconds: field(b, payload + 12, 3)),
                        disposal: flags & 1 != 0 ? .clear : .keep, blends: flags & 2 == 0, transparentIndex: -1,
                        dataStart: payload + 16, dataEnd: payload + size))
                default:
                    break
                }
                offset = payload + size + (size & 1)  // chunks are padded to even sizes
            }
            guard let canvas, canvas.width * canvas.height <= limits.maxPixels else { return nil }
            return AnimationSource(format: .webp, bytes: bytes, canvasWidth: canvas.width, canvasHeight: canvas.height,
                                   headerEnd: 0, frames: frames, loopCount: loopCount)
        }
    }

    private static func fourCC(_ b: UnsafeBufferPointer<UInt8>, _ offset: Int) -> String {
        String(decoding: b[offset..<(offset + 4)], as: UTF8.self)
    }

    private static func field(_ b: UnsafeBufferPointer<UInt8>, _ offset: Int, _ count: Int) -> Int {
        (0..<count).reduce(0) { $0 | Int(b[offset + $1]) << (8 * $1) }
    }
}
