import CWebP
import Glibc

/// A WebP of the pattern, encoded by libwebp: lossless (VP8L) or lossy (VP8, with an
/// ALPH chunk when the pattern has alpha). Returns [] when libwebp refuses.
public func makeWebP(width: Int, height: Int, lossless: Bool = true, quality: Float = 90,
                     pattern: TestPattern = .gradient) -> [UInt8] {
    makeWebP(rgba: makeRGBA(width: width, height: height, pattern: pattern), width: width, height: height,
             lossless: lossless, quality: quality)
}

/// A WebP of straight RGBA pixels, `width * 4` bytes a row.
public func makeWebP(rgba: [UInt8], width: Int, height: Int, lossless: Bool = true, quality: Float = 90) -> [UInt8] {
    var output: UnsafeMutablePointer<UInt8>?
    let size = lossless
        ? WebPEncodeLosslessRGBA(rgba, Int32(width), Int32(height), Int32(width * 4), &output)
        : WebPEncodeRGBA(rgba, Int32(width), Int32(height), Int32(width * 4), quality, &output)
    guard size > 0, let output else { return [] }
    defer { WebPFree(output) }
    return Array(UnsafeBufferPointer(start: output, count: size))
}

/// One frame of `makeAnimatedWebP`: a WebP file's image chunks placed at an offset.
public struct WebPTestFrame: Sendable {
    public let left: Int
    public let top: Int
    public let width: Int
    public let height: Int
    /// The frame's chunks (ALPH and VP8, or VP8L) as in a WebP file after its headers.
    public let chunks: [UInt8]
    /// Milliseconds; alpha-blended over the canvas (else written over it); cleared to
    /// transparent after it is shown.
    public var duration = 100
    public var blends = false
    public var disposes = false

    /// Takes the image chunks of `webp` (a file from `makeWebP` of that size); offsets
    /// are even, as the format stores them halved.
    public init(left: Int, top: Int, width: Int, height: Int, webp: [UInt8]) {
        self.left = left
        self.top = top
        self.width = width
        self.height = height
        var chunks = Array(webp.dropFirst(12))
        if chunks.starts(with: Array("VP8X".utf8)) { chunks.removeFirst(18) }
        self.chunks = chunks
    }
}

/// An animated WebP of `frames` on a canvas of `canvasWidth` x `canvasHeight`: RIFF,
/// VP8X (animation flag), ANIM (transparent background, `loopCount` plays, 0 =
/// forever), then an ANMF chunk per frame with its duration, blending and disposal.
public func makeAnimatedWebP(canvasWidth: Int, canvasHeight: Int, frames: [WebPTestFrame],
                             loopCount: Int = 0) -> [UInt8] {
    func le(_ value: Int, _ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    func chunk(_ fourCC: String, _ payload: [UInt8]) -> [UInt8] {
        Array(fourCC.utf8) + le(payload.count, 4) + payload + (payload.count % 2 == 1 ? [0] : [])
    }
    var body = Array("WEBP".utf8)
    body += chunk("VP8X", [0x02, 0, 0, 0] + le(canvasWidth - 1, 3) + le(canvasHeight - 1, 3))
    body += chunk("ANIM", [0, 0, 0, 0] + le(loopCount, 2))
    for frame in frames {
        let flags: UInt8 = (frame.blends ? 0 : 0x02) | (frame.disposes ? 0x01 : 0)
        body += chunk("ANMF", le(frame.left / 2, 3) + le(frame.top / 2, 3) + le(frame.width - 1, 3)
                        + le(frame.height - 1, 3) + le(frame.duration, 3) + [flags] + frame.chunks)
    }
    return Array("RIFF".utf8) + le(body.count, 4) + body
}
