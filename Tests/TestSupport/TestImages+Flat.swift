import CSpng
import CTurboJPEG
import CWebP
import Glibc

// Large images of one flat colour, for the tests of what a decode holds: the
// encoders get a buffer filled by memset, so a 7000 x 7000 source costs the test a
// fraction of a second, not the per-pixel patterns' minutes.

/// The JPEG chroma layouts `makeFlatJPEG` writes.
public enum JPEGLayout: Sendable {
    case gray, yuv420, yuv444

    var subsampling: TJSAMP {
        switch self {
        case .gray: TJSAMP_GRAY
        case .yuv420: TJSAMP_420
        case .yuv444: TJSAMP_444
        }
    }
}

public func makeFlatJPEG(width: Int, height: Int, layout: JPEGLayout, progressive: Bool = false) -> [UInt8] {
    guard let handle = tjInitCompress() else { return [] }
    defer { tjDestroy(handle) }
    let channels = layout == .gray ? 1 : 3
    let pixels = [UInt8](repeating: 150, count: width * height * channels)
    var output: UnsafeMutablePointer<UInt8>?
    var size: UInt = 0
    let pixelFormat = layout == .gray ? TJPF_GRAY : TJPF_RGB
    let rc = tjCompress2(handle, pixels, Int32(width), Int32(width * channels), Int32(height), Int32(pixelFormat.rawValue),
                         &output, &size, Int32(layout.subsampling.rawValue), 90, progressive ? TJFLAG_PROGRESSIVE : 0)
    defer { tjFree(output) }
    guard rc == 0, let output else { return [] }
    return Array(UnsafeBufferPointer(start: output, count: Int(size)))
}

/// A PNG whose every sample byte is 0x80.
public func makeFlatPNG(width: Int, height: Int, colorType: PNGColorType = .rgba, bitDepth: Int = 8,
                        interlaced: Bool = false) -> [UInt8] {
    let raw = [UInt8](repeating: 0x80, count: width * height * colorType.channels * bitDepth / 8)
    return encodePNG(raw, width: width, height: height, colorType: colorType, bitDepth: bitDepth, interlaced: interlaced)
}

/// A WebP of one RGBA colour (alpha below 255 makes libwebp keep an alpha channel).
public func makeFlatWebP(width: Int, height: Int, rgba: [UInt8], lossless: Bool) -> [UInt8] {
    let pixel = rgba.withUnsafeBytes { $0.load(as: UInt32.self) }
    let pixels = [UInt32](repeating: pixel, count: width * height)
    var output: UnsafeMutablePointer<UInt8>?
    let size = pixels.withUnsafeBytes { buffer in
        let base = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
        return lossless
            ? WebPEncodeLosslessRGBA(base, Int32(width), Int32(height), Int32(width * 4), &output)
            : WebPEncodeRGBA(base, Int32(width), Int32(height), Int32(width * 4), 75, &output)
    }
    guard size > 0, let output else { return [] }
    defer { WebPFree(output) }
    return Array(UnsafeBufferPointer(start: output, count: size))
}

/// A lossless WebP of one ARGB colour, written by hand the way no encoder would: no
/// colour-indexing transform (which would pack the pixels), and five Huffman codes of
/// one symbol each, so every pixel costs zero bits. libwebp then holds all 4 x width x
/// height bytes of pixels from a file of a few dozen bytes: the worst a lossless file
/// can make it keep.
public func makeSolidLosslessWebP(width: Int, height: Int, rgba: [UInt8]) -> [UInt8] {
    var writer = LSBBitWriter()
    writer.write(0x2F, bits: 8)
    writer.write(width - 1, bits: 14)
    writer.write(height - 1, bits: 14)
    writer.write(rgba[3] < 255 ? 1 : 0, bits: 1)  // alpha is used
    writer.write(0, bits: 3)  // version
    writer.writeSolidVP8LImage(green: rgba[1], red: rgba[0], blue: rgba[2], alpha: rgba[3])
    let payload = writer.bytes
    return riffWebP(chunk: "VP8L", payload)
}

/// A lossy WebP with alpha whose ALPH chunk is a lossless image stream of one alpha
/// value, again without colour indexing: libwebp decodes such an alpha plane through
/// 32-bit pixels (4 bytes a pixel) into its alpha plane (one more), the most alpha
/// can cost. The colour comes from libwebp's encoder.
public func makeLossyWebPWithCostlyAlpha(width: Int, height: Int, alpha: UInt8) -> [UInt8] {
    let opaque = makeFlatWebP(width: width, height: height, rgba: [90, 60, 30, 255], lossless: false)
    // RIFF (12), then the VP8 chunk.
    guard opaque.count > 20, Array(opaque[12..<16]) == Array("VP8 ".utf8) else { return [] }
    var writer = LSBBitWriter()
    // Lossless compression, no filtering, no preprocessing.
    writer.write(1, bits: 8)
    writer.writeSolidVP8LImage(green: alpha, red: 0, blue: 0, alpha: 255)
    func le(_ value: Int, _ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    let vp8x = Array("VP8X".utf8) + le(10, 4) + [0x10, 0, 0, 0] + le(width - 1, 3) + le(height - 1, 3)
    let alph = writer.bytes
    let alphChunk = Array("ALPH".utf8) + le(alph.count, 4) + alph + (alph.count % 2 == 1 ? [0] : [])
    let body = Array("WEBP".utf8) + vp8x + alphChunk + Array(opaque[12...])
    return Array("RIFF".utf8) + le(body.count, 4) + body
}

private func riffWebP(chunk fourCC: String, _ payload: [UInt8]) -> [UInt8] {
    func le(_ value: Int, _ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    let padded = payload + (payload.count % 2 == 1 ? [0] : [])
    let body = Array("WEBP".utf8) + Array(fourCC.utf8) + le(payload.count, 4) + padded
    return Array("RIFF".utf8) + le(body.count, 4) + body
}

extension LSBBitWriter {
    /// A VP8L image stream (after the header) of one ARGB value: no transform, no
    /// colour cache, no meta Huffman image, and five simple codes of one 8-bit symbol
    /// each (green, red, blue, alpha, distance).
    mutating func writeSolidVP8LImage(green: UInt8, red: UInt8, blue: UInt8, alpha: UInt8) {
        write(0, bits: 1)  // no transform
        write(0, bits: 1)  // no colour cache
        write(0, bits: 1)  // no meta Huffman codes
        for symbol in [green, red, blue, alpha, 0] {
            write(1, bits: 1)  // simple code
            write(0, bits: 1)  // one symbol
            write(1, bits: 1)  // of 8 bits
            write(Int(symbol), bits: 8)
        }
    }
}
