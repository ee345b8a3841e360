import CWebP

/// A WebP frame drawn onto the canvas. Its bitstream (ALPH and VP8, or VP8L) is
/// decoded by libwebp at its own size: straight into the canvas rows when it replaces
/// what is under it (no blending, or no alpha), else into a frame-sized buffer that
/// is then alpha-blended over the canvas by the format's "over" formula on straight
/// alpha. Checked against the working-memory limit first, with the canvas counted.
extension AnimationComposer {
    func drawWebP(_ frame: AnimationFrame, limits: DecodeLimits) {
        source.bytes.withUnsafeBufferPointer { bytes in
            let bitstream = UnsafeBufferPointer(rebasing: bytes[frame.dataStart..<frame.dataEnd])
            guard let features = try? WebPDecoder.features(of: bitstream),
                  Int(features.width) == Int(frame.width), Int(features.height) == Int(frame.height),
                  // The canvas counts beside the frame's decode.
                  case .success = WebPDecodeCost(features, canvasWidth: source.canvasWidth, otherBytes: byteCount)
                    .planDrawingOnCanvas(limits)
            else { return }
            let size = (width: Int(frame.width), height: Int(frame.height))
            let origin = canvas + Int(frame.top) * stride + Int(frame.left) * 4
            guard frame.blends && features.has_alpha != 0 else {
                try? WebPDecoder.decodeRGBA(bitstream, fullSize: size, scaled: size, into: origin, stride: stride)
                return
            }
            let rowBytes = size.width * 4
            let decoded = UnsafeMutableRawPointer.allocate(byteCount: rowBytes * size.height, alignment: 16)
            defer { decoded.deallocate() }
            guard (try? WebPDecoder.decodeRGBA(bitstream, fullSize: size, scaled: size, into: decoded,
                                               stride: rowBytes)) != nil
            else { return }
            for y in 0..<size.height {
                Self.blend((decoded + y * rowBytes).assumingMemoryBound(to: UInt8.self),
                           over: (origin + y * stride).assumingMemoryBound(to: UInt8.self), count: size.width)
            }
        }
    }

    /// `count` straight-alpha RGBA pixels of `source` over those of `destination`:
    /// alpha = a_s + a_d (1 - a_s), colour = (c_s a_s + c_d a_d (1 - a_s)) / alpha,
    /// in integers scaled by 255 and rounded once.
    static func blend(_ source: UnsafePointer<UInt8>, over destination: UnsafeMutablePointer<UInt8>, count: Int) {
        for x in 0..<count {
            let s = source + 4 * x, d = destination + 4 * x
            let sourceAlpha = UInt32(s[3])
            if sourceAlpha == 0 { continue }
            if sourceAlpha == 255 {
                d.update(from: s, count: 4)
                continue
            }
            // All terms below 255^3, so the sums fit in 32 bits.
            let underWeight = UInt32(d[3]) * (255 - sourceAlpha)
            let total = sourceAlpha * 255 + underWeight
            for channel in 0..<3 {
                let sum = UInt32(s[channel]) * sourceAlpha * 255 + UInt32(d[channel]) * underWeight
                d[channel] = UInt8((sum + total / 2) / total)
            }
            d[3] = UInt8((total + 127) / 255)
        }
    }
}
