import Glibc

/// A BlurHash (Wolt's placeholder format, the `blurhash` field of Mastodon's media
/// attachments): base 83 text holding the average colour and a few cosine components
/// of a picture, but not its size or aspect ratio.
///
/// Rendering does what the reference decoders in doubles do (the TypeScript package,
/// and the Python `blurhash` package that ports it), in their order of operations, so
/// its bytes are theirs: `docs/pending/placeholders.md` says how that is checked.
public struct BlurHash: Sendable, Equatable {
    /// 9 x 9 components, the most an encoder writes: 4 + 2 * 81 characters.
    public static let maximumLength = 166

    public let componentsX: Int
    public let componentsY: Int
    /// Each character's base 83 value.
    private let digits: [UInt8]

    /// Parses and checks the hash's text; at most `maximumLength` bytes are looked at.
    public init(_ text: some Collection<UInt8>) throws(PlaceholderError) {
        guard text.count <= Self.maximumLength else { throw .tooLong }
        var digits = [UInt8]()
        digits.reserveCapacity(text.count)
        for character in text {
            let digit = Self.base83[Int(character)]
            guard digit >= 0 else { throw .blurHashCharacter }
            digits.append(UInt8(digit))
        }
        guard digits.count >= 6 else { throw .blurHashLength }
        // The first digit is (x - 1) + 9 * (y - 1); 81 and 82 give 10 rows, which the
        // reference decoders accept too.
        let size = Int(digits[0])
        componentsX = size % 9 + 1
        componentsY = size / 9 + 1
        guard digits.count == 4 + 2 * componentsX * componentsY else { throw .blurHashLength }
        self.digits = digits
    }

    /// The base 83 value of each byte, -1 for bytes outside the alphabet.
    private static let base83: [Int8] = {
        var values = [Int8](repeating: -1, count: 256)
        for (value, character) in "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~"
            .utf8.enumerated() {
            values[Int(character)] = Int8(value)
        }
        return values
    }()

    private func number(_ range: Range<Int>) -> Int {
        digits[range].reduce(0) { $0 * 83 + Int($1) }
    }

    /// The components in linear light, x fastest: `count` each of red, green, blue.
    private func components(into colours: UnsafeMutablePointer<Double>) {
        let count = componentsX * componentsY
        let red = colours, green = colours + count, blue = colours + 2 * count
        // The average colour: 8-bit sRGB (the DC value may exceed 24 bits; so may the
        // reference's shifts, which this repeats).
        let average = number(2..<6)
        red[0] = Self.linear(fromSRGB: average >> 16)
        green[0] = Self.linear(fromSRGB: (average >> 8) & 255)
        blue[0] = Self.linear(fromSRGB: average & 255)
        let maximum = Double(number(1..<2) + 1) / 166
        for index in 1..<count {
            let value = number(4 + 2 * index ..< 6 + 2 * index)
            red[index] = Self.signedSquare(value / (19 * 19), maximum)
            green[index] = Self.signedSquare(value / 19 % 19, maximum)
            blue[index] = Self.signedSquare(value % 19, maximum)
        }
    }

    private static func linear(fromSRGB value: Int) -> Double {
        let v = Double(value) / 255
        return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }

    /// A quantised AC value 0...18 as -1...1 (9 is 0), squared with its sign, scaled.
    private static func signedSquare(_ quantised: Int, _ maximum: Double) -> Double {
        let v = (Double(quantised) - 9) / 9
        return copysign(pow(abs(v), 2), v) * maximum
    }

    /// The picture at `width` x `height` (each 1 or more), opaque, in `format`; nil
    /// only when the size is refused by `DecodedImage`.
    public func render(width: Int, height: Int, format: PixelFormat) -> DecodedImage? {
        guard width > 0, height > 0,
              let image = DecodedImage(width: width, height: height, sourceWidth: width, sourceHeight: height,
                                       format: format, isPlaceholder: true)
        else { return nil }
        let nx = componentsX, ny = componentsY, count = nx * ny
        let lanes = (width + 3) / 4
        // One scratch block: the components, then cos(pi * x * i / width) for each
        // column in lanes of four, then the same down the rows: the factors the
        // reference computes per pixel, computed once.
        let scratch = UnsafeMutableRawPointer.allocate(
            byteCount: (3 * count + height * ny) * 8 + lanes * nx * 32, alignment: 32)
        defer { scratch.deallocate() }
        let columns = scratch.bindMemory(to: SIMD4<Double>.self, capacity: lanes * nx)
        let rows = (scratch + lanes * nx * 32).bindMemory(to: Double.self, capacity: height * ny + 3 * count)
        let colours = rows + height * ny
        components(into: colours)
        for lane in 0..<lanes {
            for i in 0..<nx {
                var value = SIMD4<Double>.zero
                for k in 0..<4 { value[k] = cos(Double.pi * Double(lane * 4 + k) * Double(i) / Double(width)) }
                columns[lane * nx + i] = value
            }
        }
        for y in 0..<height {
            for j in 0..<ny { rows[y * ny + j] = cos(Double.pi * Double(y) * Double(j) / Double(height)) }
        }
        let red = colours, green = colours + count, blue = colours + 2 * count
        // Each row's sums in linear light, red then green then blue, `lanes * 4` each.
        let sums = UnsafeMutablePointer<SIMD4<Double>>.allocate(capacity: 3 * lanes)
        defer { sums.deallocate() }
        let encode = LinearToSRGB.shared
        // Opaque, so premultiplying changes nothing: only the order of bytes differs.
        let (redShift, blueShift): (UInt32, UInt32) = format == .bgra8Premultiplied ? (16, 0) : (0, 16)
        for y in 0..<height {
            let rowFactors = rows + y * ny
            for lane in 0..<lanes {
                let laneColumns = columns + lane * nx
                var r = SIMD4<Double>.zero, g = SIMD4<Double>.zero, b = SIMD4<Double>.zero
                // The reference's order of sums and products, lane by lane.
                for j in 0..<ny {
                    let rowFactor = rowFactors[j]
                    for i in 0..<nx {
                        let basis = laneColumns[i] * rowFactor
                        let index = i + j * nx
                        r += red[index] * basis
                        g += green[index] * basis
                        b += blue[index] * basis
                    }
                }
                sums[lane] = r
                sums[lanes + lane] = g
                sums[2 * lanes + lane] = b
            }
            let linear = UnsafeRawPointer(sums).assumingMemoryBound(to: Double.self)
            let out = (image.pixels + y * image.stride).assumingMemoryBound(to: UInt32.self)
            for x in 0..<width {
                let r = UInt32(encode.byte(linear[x])), g = UInt32(encode.byte(linear[4 * lanes + x]))
                let b = UInt32(encode.byte(linear[8 * lanes + x]))
                out[x] = (r << redShift | g << 8 | b << blueShift | 0xFF00_0000).littleEndian
            }
        }
        return image
    }
}
