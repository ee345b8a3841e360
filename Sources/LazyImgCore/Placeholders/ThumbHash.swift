import Glibc

/// A ThumbHash (Evan Wallace's placeholder format): a few bytes holding the average
/// colour, cosine components of luminance, two colour differences and alpha, and the
/// picture's approximate aspect ratio. Feeds carry it as base64 text.
///
/// Rendering does what the reference decoder in Rust does (`thumb_hash_to_rgba`, in
/// 32-bit floats), in its order of operations, so at the reference's own size its bytes
/// are the reference's; at other sizes the same formulas run on that size's grid.
/// `docs/pending/placeholders.md` says how that is checked.
public struct ThumbHash: Sendable, Equatable {
    /// 25 bytes is the longest hash the reference encoder writes; this leaves room for
    /// encoders that pad, and no more.
    public static let maximumByteCount = 48
    /// Base64 of `maximumByteCount` bytes.
    public static let maximumBase64Length = 64

    private let bytes: [UInt8]

    /// Parses and checks the hash's bytes; bytes past what the header needs are ignored,
    /// as the reference ignores them.
    public init(bytes: some Collection<UInt8>) throws(PlaceholderError) {
        guard bytes.count <= Self.maximumByteCount else { throw .tooLong }
        let bytes = Array(bytes)
        guard bytes.count >= 5 else { throw .thumbHashTooShort }
        self.bytes = bytes
        guard header.lMin > 0 else { throw .thumbHashNoComponents }
        let l = header.luminanceComponents
        let nibbles = Self.acCount(l.x, l.y) + 2 * Self.acCount(3, 3) + (header.hasAlpha ? Self.acCount(5, 5) : 0)
        guard bytes.count >= header.acStart + (nibbles + 1) / 2 else { throw .thumbHashTooShort }
    }

    /// Parses base64 text (standard or URL-safe alphabet, padding optional).
    public init(base64 text: some Collection<UInt8>) throws(PlaceholderError) {
        guard text.count <= Self.maximumBase64Length else { throw .tooLong }
        guard let bytes = Base64Text.decode(text) else { throw .thumbHashBase64 }
        try self.init(bytes: bytes)
    }

    /// The header's fields that set the sizes of things.
    private struct Header {
        let hasAlpha: Bool
        let isLandscape: Bool
        /// The luminance component count on the short side, 1...7.
        let lMin: Int
        var lMax: Int { hasAlpha ? 5 : 7 }
        var acStart: Int { hasAlpha ? 6 : 5 }
        /// As the reference decodes them: at least 3 a side.
        var luminanceComponents: (x: Int, y: Int) {
            (max(3, isLandscape ? lMax : lMin), max(3, isLandscape ? lMin : lMax))
        }
    }

    private var header: Header {
        Header(hasAlpha: bytes[2] & 0x80 != 0, isLandscape: bytes[4] & 0x80 != 0, lMin: Int(bytes[3] & 7))
    }

    /// The approximate aspect ratio, width to height, as the fraction the reference
    /// computes it from (`thumb_hash_to_approximate_aspect_ratio`).
    public var aspectRatio: (width: Int, height: Int) {
        let h = header
        return h.isLandscape ? (h.lMax, h.lMin) : (h.lMin, h.lMax)
    }

    /// The reference's own size: 32 pixels on the long side.
    public var referenceSize: (width: Int, height: Int) {
        let ratio = Float(aspectRatio.width) / Float(aspectRatio.height)
        return ratio > 1 ? (32, Int((32 / ratio).rounded())) : (Int((32 * ratio).rounded()), 32)
    }

    /// The AC components of an nx x ny channel: a triangle of the grid, minus DC.
    private static func acCount(_ nx: Int, _ ny: Int) -> Int {
        var count = 0
        for cy in 0..<ny {
            var cx = cy > 0 ? 0 : 1
            while cx * ny < nx * (ny - cy) { count += 1; cx += 1 }
        }
        return count
    }

    /// The picture on a `width` x `height` grid (each 1 or more), in `format`; nil
    /// only when the size is refused by `DecodedImage`.
    public func render(width: Int, height: Int, format: PixelFormat) -> DecodedImage? {
        render(gridWidth: width, gridHeight: height, visible: (0, 0, width, height), format: format)
    }

    /// The `visible` rectangle of the picture on a `gridWidth` x `gridHeight` grid: the
    /// same pixels as that part of the whole grid's render (a centred crop fills a box).
    func render(gridWidth: Int, gridHeight: Int, visible: (x: Int, y: Int, width: Int, height: Int),
                format: PixelFormat) -> DecodedImage? {
        guard gridWidth > 0, gridHeight > 0, visible.width > 0, visible.height > 0,
              visible.x >= 0, visible.y >= 0, visible.x <= gridWidth - visible.width,
              visible.y <= gridHeight - visible.height,
              let image = DecodedImage(width: visible.width, height: visible.height, sourceWidth: visible.width,
                                       sourceHeight: visible.height, format: format, isPlaceholder: true)
        else { return nil }
        let h = header
        let header24 = Int(bytes[0]) | Int(bytes[1]) << 8 | Int(bytes[2]) << 16
        let header16 = Int(bytes[3]) | Int(bytes[4]) << 8
        let lDC = Float(header24 & 63) / 63
        let pDC = Float((header24 >> 6) & 63) / 31.5 - 1
        let qDC = Float((header24 >> 12) & 63) / 31.5 - 1
        let lScale = Float((header24 >> 18) & 31) / 31
        let pScale = Float((header16 >> 3) & 63) / 63
        let qScale = Float((header16 >> 9) & 63) / 63
        let aDC: Float = h.hasAlpha ? Float(bytes[5] & 15) / 15 : 1
        let aScale: Float = h.hasAlpha ? Float(bytes[5] >> 4) / 15 : 1
        let (lx, ly) = h.luminanceComponents

        // The AC factors, four bits each, low nibble first; colour boosted by 1.25 to
        // make up for quantisation, as the reference does.
        var nibble = 0
        func channel(_ nx: Int, _ ny: Int, _ scale: Float) -> [Float] {
            var ac = [Float]()
            for cy in 0..<ny {
                var cx = cy > 0 ? 0 : 1
                while cx * ny < nx * (ny - cy) {
                    let byte = bytes[h.acStart + (nibble >> 1)]
                    let bits = nibble & 1 == 0 ? byte & 15 : byte >> 4
                    ac.append((Float(bits) / 7.5 - 1) * scale)
                    nibble += 1
                    cx += 1
                }
            }
            return ac
        }
        let lAC = channel(lx, ly, lScale)
        let pAC = channel(3, 3, pScale * 1.25)
        let qAC = channel(3, 3, qScale * 1.25)
        let aAC = h.hasAlpha ? channel(5, 5, aScale) : []

        // cos(pi / w * (x + 0.5) * cx) for each visible column in lanes of four, and the
        // same down the rows: the factors the reference computes per pixel, computed once.
        // pi as the nearest Float, as Rust's f32 PI is (Swift's Float.pi rounds down).
        let pi: Float = 3.14159265358979323846
        let nx = max(lx, h.hasAlpha ? 5 : 3), ny = max(ly, h.hasAlpha ? 5 : 3)
        let lanes = (visible.width + 3) / 4
        let columns = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: lanes * nx)
        defer { columns.deallocate() }
        for lane in 0..<lanes {
            for cx in 0..<nx {
                var value = SIMD4<Float>.zero
                for k in 0..<4 {
                    let x = visible.x + lane * 4 + k
                    value[k] = cosf(pi / Float(gridWidth) * (Float(x) + 0.5) * Float(cx))
                }
                columns[lane * nx + cx] = value
            }
        }
        let rows = UnsafeMutablePointer<Float>.allocate(capacity: visible.height * ny)
        defer { rows.deallocate() }
        for row in 0..<visible.height {
            for cy in 0..<ny {
                rows[row * ny + cy] = cosf(pi / Float(gridHeight) * (Float(visible.y + row) + 0.5) * Float(cy))
            }
        }
        // Each row's red, green, blue and alpha, `lanes * 4` each.
        let sums = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: 4 * lanes)
        defer { sums.deallocate() }

        lAC.withUnsafeBufferPointer { lAC in pAC.withUnsafeBufferPointer { pAC in
        qAC.withUnsafeBufferPointer { qAC in aAC.withUnsafeBufferPointer { aAC in
            for row in 0..<visible.height {
                let fy = rows + row * ny
                for lane in 0..<lanes {
                    let fx = columns + lane * nx
                    var l = SIMD4<Float>(repeating: lDC), p = SIMD4<Float>(repeating: pDC)
                    var q = SIMD4<Float>(repeating: qDC), a = SIMD4<Float>(repeating: aDC)
                    // The reference's order of sums and products, lane by lane.
                    var j = 0
                    for cy in 0..<ly {
                        var cx = cy > 0 ? 0 : 1
                        let fy2 = fy[cy] * 2
                        while cx * ly < lx * (ly - cy) {
                            l += lAC[j] * fx[cx] * fy2
                            j += 1
                            cx += 1
                        }
                    }
                    j = 0
                    for cy in 0..<3 {
                        let fy2 = fy[cy] * 2
                        for cx in (cy > 0 ? 0 : 1)..<(3 - cy) {
                            let f = fx[cx] * fy2
                            p += pAC[j] * f
                            q += qAC[j] * f
                            j += 1
                        }
                    }
                    if h.hasAlpha {
                        j = 0
                        for cy in 0..<5 {
                            let fy2 = fy[cy] * 2
                            for cx in (cy > 0 ? 0 : 1)..<(5 - cy) {
                                a += aAC[j] * fx[cx] * fy2
                                j += 1
                            }
                        }
                    }
                    let b = l - 2.0 / 3.0 * p
                    let r = (3.0 * l - b + q) / 2.0
                    sums[lane] = r
                    sums[lanes + lane] = r - q
                    sums[2 * lanes + lane] = b
                    sums[3 * lanes + lane] = a
                }
                let values = UnsafeRawPointer(sums).assumingMemoryBound(to: Float.self)
                let out = (image.pixels + row * image.stride).assumingMemoryBound(to: UInt32.self)
                for x in 0..<visible.width {
                    out[x] = Self.pixel(red: values[x], green: values[4 * lanes + x], blue: values[8 * lanes + x],
                                        alpha: values[12 * lanes + x], format: format)
                }
            }
        } } } }
        return image
    }

    /// The reference's `(v.clamp(0, 1) * 255) as u8` for each channel, then the loader's
    /// premultiplying rule for BGRA (as `DecodedImageBuilder` converts decoded files);
    /// the pixel's four bytes in memory order.
    @inline(__always)
    private static func pixel(red: Float, green: Float, blue: Float, alpha: Float, format: PixelFormat) -> UInt32 {
        func byte(_ v: Float) -> UInt32 { UInt32(min(max(v, 0), 1) * 255) }
        var r = byte(red), g = byte(green), b = byte(blue)
        let a = byte(alpha)
        if format == .bgra8Premultiplied {
            (r, b) = ((b * a + 127) / 255, (r * a + 127) / 255)
            g = (g * a + 127) / 255
        }
        return (r | g << 8 | b << 16 | a << 24).littleEndian
    }
}
