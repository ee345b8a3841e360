import CSpng
import CTurboJPEG
import Glibc

/// What a generated test image shows. Pixels are RGBA8, straight alpha.
public enum TestPattern: Sendable, Equatable {
    /// Every pixel the same colour.
    case solid(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255)
    /// Red rises left to right, green top to bottom, blue is constant; opaque.
    case gradient
    /// Squares of `cell` pixels alternating between two colours, `first` at (0, 0).
    case checkerboard(cell: Int, first: [UInt8], second: [UInt8])
    /// The image cut into `columns` x `rows` equal cells, each a solid colour; `colours`
    /// lists them row by row (so `.grid(columns: 3, rows: 1, ...)` is vertical thirds).
    case grid(columns: Int, rows: Int, colours: [[UInt8]])

    /// 1-pixel black and white squares: the worst case for aliasing.
    public static let fineChecker = TestPattern.checkerboard(cell: 1, first: [0, 0, 0, 255], second: [255, 255, 255, 255])

    /// The RGBA8 value of pixel (x, y) in a `width` x `height` image.
    public func pixel(x: Int, y: Int, width: Int, height: Int) -> [UInt8] {
        switch self {
        case let .solid(red, green, blue, alpha):
            return [red, green, blue, alpha]
        case .gradient:
            let red = UInt8(width > 1 ? x * 255 / (width - 1) : 0)
            let green = UInt8(height > 1 ? y * 255 / (height - 1) : 0)
            return [red, green, 128, 255]
        case let .checkerboard(cell, first, second):
            let size = max(cell, 1)
            return (x / size + y / size) % 2 == 0 ? first : second
        case let .grid(columns, rows, colours):
            let column = x * columns / max(width, 1), row = y * rows / max(height, 1)
            return colours[row * columns + column]
        }
    }
}

/// The pattern as RGBA8 rows, top row first, no padding.
public func makeRGBA(width: Int, height: Int, pattern: TestPattern) -> [UInt8] {
    var pixels: [UInt8] = []
    pixels.reserveCapacity(width * height * 4)
    for y in 0..<height {
        for x in 0..<width {
            pixels.append(contentsOf: pattern.pixel(x: x, y: y, width: width, height: height))
        }
    }
    return pixels
}

/// A baseline (or progressive) JPEG of the pattern (4:2:0 below quality 90, 4:4:4 from
/// 90 up, so solid colours survive closely at the default). Alpha is ignored.
public func makeJPEG(width: Int, height: Int, quality: Int = 90, pattern: TestPattern = .gradient,
                     progressive: Bool = false) -> [UInt8] {
    guard let handle = tjInitCompress() else { return [] }
    defer { tjDestroy(handle) }
    let pixels = makeRGBA(width: width, height: height, pattern: pattern)
    var output: UnsafeMutablePointer<UInt8>?
    var size: UInt = 0
    let subsampling = quality >= 90 ? TJSAMP_444 : TJSAMP_420
    let rc = tjCompress2(handle, pixels, Int32(width), Int32(width * 4), Int32(height), Int32(TJPF_RGBA.rawValue),
                         &output, &size, Int32(subsampling.rawValue), Int32(quality),
                         progressive ? TJFLAG_PROGRESSIVE : 0)
    defer { tjFree(output) }
    guard rc == 0, let output else { return [] }
    return Array(UnsafeBufferPointer(start: output, count: Int(size)))
}

/// The PNG colour types the generator writes.
public enum PNGColorType: UInt8, Sendable {
    case gray = 0
    case rgb = 2
    case grayAlpha = 4
    case rgba = 6

    var channels: Int {
        switch self {
        case .gray: 1
        case .rgb: 3
        case .grayAlpha: 2
        case .rgba: 4
        }
    }
}

/// A PNG of the pattern, encoded by libspng. Gray types take the red channel; 16-bit
/// samples are the 8-bit value times 257, so decoding back to 8 bits is exact.
public func makePNG(width: Int, height: Int, colorType: PNGColorType = .rgba, bitDepth: Int = 8,
                    interlaced: Bool = false, pattern: TestPattern = .gradient) -> [UInt8] {
    let rgba = makeRGBA(width: width, height: height, pattern: pattern)
    let channelOrder: [Int] = switch colorType {
    case .gray: [0]
    case .rgb: [0, 1, 2]
    case .grayAlpha: [0, 3]
    case .rgba: [0, 1, 2, 3]
    }
    var raw: [UInt8] = []
    raw.reserveCapacity(width * height * colorType.channels * bitDepth / 8)
    for pixel in 0..<(width * height) {
        for channel in channelOrder {
            let value = rgba[pixel * 4 + channel]
            if bitDepth == 16 {
                // libspng takes 16-bit samples in host byte order.
                withUnsafeBytes(of: UInt16(value) * 257) { raw.append(contentsOf: $0) }
            } else {
                raw.append(value)
            }
        }
    }
    return encodePNG(raw, width: width, height: height, colorType: colorType, bitDepth: bitDepth, interlaced: interlaced)
}

/// Samples as libspng takes them (rows back to back, 16-bit ones in host order),
/// encoded whole.
func encodePNG(_ raw: [UInt8], width: Int, height: Int, colorType: PNGColorType, bitDepth: Int,
               interlaced: Bool) -> [UInt8] {
    guard let context = spng_ctx_new(Int32(SPNG_CTX_ENCODER.rawValue)) else { return [] }
    defer { spng_ctx_free(context) }
    spng_set_option(context, SPNG_ENCODE_TO_BUFFER, 1)
    var header = spng_ihdr(width: UInt32(width), height: UInt32(height), bit_depth: UInt8(bitDepth),
                           color_type: colorType.rawValue, compression_method: 0, filter_method: 0,
                           interlace_method: interlaced ? 1 : 0)
    guard spng_set_ihdr(context, &header) == 0,
          spng_encode_image(context, raw, raw.count, Int32(SPNG_FMT_PNG.rawValue), Int32(SPNG_ENCODE_FINALIZE.rawValue)) == 0
    else { return [] }
    var length = 0
    var error: Int32 = 0
    guard let buffer = spng_get_png_buffer(context, &length, &error), error == 0 else { return [] }
    defer { free(buffer) }
    return Array(UnsafeRawBufferPointer(start: buffer, count: length))
}

/// A mid-grey RGB PNG of any size, encoded a row at a time so even a huge one costs
/// the test one row of memory (7000 x 7000 makes a file of about 50 KB).
public func makeBlankPNG(width: Int, height: Int) -> [UInt8] {
    guard let context = spng_ctx_new(Int32(SPNG_CTX_ENCODER.rawValue)) else { return [] }
    defer { spng_ctx_free(context) }
    spng_set_option(context, SPNG_ENCODE_TO_BUFFER, 1)
    var header = spng_ihdr(width: UInt32(width), height: UInt32(height), bit_depth: 8,
                           color_type: PNGColorType.rgb.rawValue, compression_method: 0, filter_method: 0,
                           interlace_method: 0)
    let flags = Int32(SPNG_ENCODE_PROGRESSIVE.rawValue | SPNG_ENCODE_FINALIZE.rawValue)
    guard spng_set_ihdr(context, &header) == 0,
          spng_encode_image(context, nil, 0, Int32(SPNG_FMT_PNG.rawValue), flags) == 0
    else { return [] }
    let row = [UInt8](repeating: 128, count: width * 3)
    for _ in 0..<height {
        let code = spng_encode_row(context, row, row.count)
        guard code == 0 || code == Int32(SPNG_EOI.rawValue) else { return [] }
    }
    var length = 0
    var error: Int32 = 0
    guard let buffer = spng_get_png_buffer(context, &length, &error), error == 0 else { return [] }
    defer { free(buffer) }
    return Array(UnsafeRawBufferPointer(start: buffer, count: length))
}

/// The CRC-32 PNG chunks carry (ISO 3309 polynomial), for tests that patch chunks.
public func pngCRC(_ bytes: some Sequence<UInt8>) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 {
            crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1
        }
    }
    return ~crc
}

/// RGB rows of pseudo-random pixels: an image no encoder can shrink much.
private func noiseRGB(width: Int, height: Int, seed: UInt64) -> [UInt8] {
    noiseBytes(width * height * 3, seed: seed)
}

/// `count` pseudo-random bytes: a body that is no image and does not compress.
public func noiseBytes(_ count: Int, seed: UInt64 = 1) -> [UInt8] {
    var state = seed | 1
    var raw = [UInt8](repeating: 0, count: count)
    raw.withUnsafeMutableBytes { bytes in
        guard let base = bytes.baseAddress else { return }
        for index in 0..<bytes.count / 8 {
            // xorshift64: cheap enough that a debug build fills 27 MB in a moment.
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            base.storeBytes(of: state, toByteOffset: index * 8, as: UInt64.self)
        }
    }
    return raw
}

/// An RGB PNG of noise: incompressible, so the file is about width x height x 3
/// bytes (3000 x 3000 makes 27 MB), for tests of large bodies; interlaced (Adam7)
/// for tests of a start's passes.
public func makeNoisePNG(width: Int, height: Int, seed: UInt64 = 1, interlaced: Bool = false) -> [UInt8] {
    let raw = noiseRGB(width: width, height: height, seed: seed)
    guard let context = spng_ctx_new(Int32(SPNG_CTX_ENCODER.rawValue)) else { return [] }
    defer { spng_ctx_free(context) }
    spng_set_option(context, SPNG_ENCODE_TO_BUFFER, 1)
    // Noise does not compress: level 1 is as small as level 9, and quick.
    spng_set_option(context, SPNG_IMG_COMPRESSION_LEVEL, 1)
    var header = spng_ihdr(width: UInt32(width), height: UInt32(height), bit_depth: 8,
                           color_type: UInt8(SPNG_COLOR_TYPE_TRUECOLOR.rawValue), compression_method: 0,
                           filter_method: 0, interlace_method: interlaced ? 1 : 0)
    guard spng_set_ihdr(context, &header) == 0,
          spng_encode_image(context, raw, raw.count, Int32(SPNG_FMT_PNG.rawValue), Int32(SPNG_ENCODE_FINALIZE.rawValue)) == 0
    else { return [] }
    var length = 0
    var error: Int32 = 0
    guard let buffer = spng_get_png_buffer(context, &length, &error), error == 0 else { return [] }
    defer { free(buffer) }
    return Array(UnsafeRawBufferPointer(start: buffer, count: length))
}

/// A quality-100 4:4:4 JPEG of noise: about 2.7 bytes a pixel, and quick to decode
/// into a small box (TurboJPEG scales by 1/8 while decoding), for tests of large
/// bodies that must also decode.
public func makeNoiseJPEG(width: Int, height: Int, seed: UInt64 = 1, quality: Int = 100,
                          progressive: Bool = false) -> [UInt8] {
    guard let handle = tjInitCompress() else { return [] }
    defer { tjDestroy(handle) }
    let pixels = noiseRGB(width: width, height: height, seed: seed)
    var output: UnsafeMutablePointer<UInt8>?
    var size: UInt = 0
    let rc = tjCompress2(handle, pixels, Int32(width), Int32(width * 3), Int32(height), Int32(TJPF_RGB.rawValue),
                         &output, &size, Int32(TJSAMP_444.rawValue), Int32(quality), progressive ? TJFLAG_PROGRESSIVE : 0)
    defer { tjFree(output) }
    guard rc == 0, let output else { return [] }
    return Array(UnsafeBufferPointer(start: output, count: Int(size)))
}
