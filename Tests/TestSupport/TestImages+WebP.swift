import CWebP
import Glibc

/// A WebP of the pattern, encoded by libwebp: lossless (VP8L) or lossy (VP8, with an
/// ALPH chunk when the pattern has alpha). Returns [] when libwebp refuses.
public func makeWebP(width: Int, height: Int, lossless: Bool = true, quality: Float = 90,
                     pattern: TestPattern = .gradient) -> [UInt8] {
    let rgba = makeRGBA(width: width, height: height, pattern: pattern)
    var output: UnsafeMutablePointer<UInt8>?
    let size = lossless
        ? WebPEncodeLosslessRGBA(rgba, Int32(width), Int32(height), Int32(width * 4), &output)
        : WebPEncodeRGBA(rgba, Int32(width), Int32(height), Int32(width * 4), quality, &output)
    guard size > 0, let output else { return [] }
    defer { WebPFree(output) }
    return Array(UnsafeBufferPointer(start: output, count: size))
}
