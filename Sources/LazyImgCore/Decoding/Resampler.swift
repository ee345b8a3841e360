/// Fits images into a box and shrinks RGBA8 pixels to the fitted size.
///
/// Shrinking averages every source pixel an output pixel covers, weighted by the
/// exact fraction covered (a box filter), so fine detail turns into its mean
/// instead of aliasing. It averages premultiplied colour so a transparent pixel,
/// whatever colour it carries, adds nothing to its neighbours.
public enum Resampler {
    /// The size an image of `width` x `height` gets in `target`: as large as fits,
    /// aspect ratio kept, never larger than the source, at least 1x1.
    /// A zero side of `target` (or a negative one) means no limit on that side.
    public static func fittedSize(width: Int, height: Int, in target: TargetSize) -> (width: Int, height: Int) {
        guard width > 0, height > 0 else { return (max(width, 1), max(height, 1)) }
        // Limits no smaller than the source do not constrain, so clamping them keeps
        // every product below width * height (no overflow for 31-bit sides).
        let boxWidth = target.width > 0 ? min(target.width, width) : width
        let boxHeight = target.height > 0 ? min(target.height, height) : height
        if boxWidth == width && boxHeight == height {
            return (width, height)
        }
        // boxWidth / width <= boxHeight / height: the width is the tighter side.
        if boxWidth * height <= boxHeight * width {
            let scaledHeight = (height * boxWidth + width / 2) / width
            return (boxWidth, max(1, min(scaledHeight, boxHeight)))
        } else {
            let scaledWidth = (width * boxHeight + height / 2) / height
            return (max(1, min(scaledWidth, boxWidth)), boxHeight)
        }
    }

    /// Shrinks (or copies, at equal size) straight-alpha RGBA8 rows into `output`.
    /// The output must be no larger than the source on either side.
    ///
    /// - Parameters:
    ///   - source: the first byte of the top source row.
    ///   - sourceStride: bytes from one source row to the next (>= 4 * width).
    ///   - opaque: every source alpha is 255 (JPEG, PNG without alpha or tRNS). Then
    ///     premultiplying changes nothing, and skipping it lets the vertical pass,
    ///     where nearly all the time goes, handle four pixels per step.
    static func downsample(source: UnsafeRawPointer, width sourceWidth: Int, height sourceHeight: Int,
                           stride sourceStride: Int, opaque: Bool = false, into output: DecodedImage) {
        downsample(source: source, width: sourceWidth, height: sourceHeight, stride: sourceStride, opaque: opaque,
                   into: output.pixels, width: output.width, height: output.height, stride: output.stride)
    }

    /// As above, into `outWidth` x `outHeight` pixels with rows `outStride` bytes apart.
    static func downsample(source: UnsafeRawPointer, width sourceWidth: Int, height sourceHeight: Int,
                           stride sourceStride: Int, opaque: Bool = false, into destination: UnsafeMutableRawPointer,
                           width outWidth: Int, height outHeight: Int, stride outStride: Int) {
        guard let rows = RowResampler(sourceWidth: sourceWidth, sourceHeight: sourceHeight, opaque: opaque,
                                      into: destination, width: outWidth, height: outHeight, stride: outStride)
        else { return }
        for sourceY in 0..<sourceHeight {
            rows.add(source + sourceY * sourceStride)
        }
    }

    /// The horizontal pass: one output row from a source-width row of weighted sums
    /// (premultiplied unless `opaque`), each output pixel the sum over the columns it
    /// covers, turned back into straight RGBA8.
    @inline(__always)
    static func writeRow(from accumulator: UnsafeMutablePointer<SIMD4<Float>>, columns: CoverageTable, opaque: Bool,
                         into out: UnsafeMutablePointer<UInt8>, width outWidth: Int) {
        for outX in 0..<outWidth {
            var sum = SIMD4<Float>.zero
            columns.forEachSource(of: outX) { sourceX, weight in
                sum += accumulator[sourceX] * weight
            }
            let alpha = sum[3]
            if opaque {
                out[4 * outX] = quantize(sum[0])
                out[4 * outX + 1] = quantize(sum[1])
                out[4 * outX + 2] = quantize(sum[2])
                out[4 * outX + 3] = 255
                continue
            }
            if alpha > 0 {
                out[4 * outX] = quantize(sum[0] / alpha)
                out[4 * outX + 1] = quantize(sum[1] / alpha)
                out[4 * outX + 2] = quantize(sum[2] / alpha)
            } else {
                out[4 * outX] = 0
                out[4 * outX + 1] = 0
                out[4 * outX + 2] = 0
            }
            out[4 * outX + 3] = quantize(alpha)
        }
    }

    /// Adds `weight` times each pixel of an RGBA8 row, premultiplied by its alpha.
    @inline(__always)
    static func accumulatePremultipliedRow(_ pixels: UnsafeRawPointer, count: Int, weight: Float,
                                                   into accumulator: UnsafeMutablePointer<SIMD4<Float>>) {
        for x in 0..<count {
            let pixel = pixelValue(pixels, x)
            let alphaWeight = pixel[3] * weight
            accumulator[x] += pixel * SIMD4(alphaWeight, alphaWeight, alphaWeight, weight)
        }
    }

    /// Adds `weight` times each pixel of an opaque RGBA8 row, four pixels at a time.
    @inline(__always)
    static func accumulateOpaqueRow(_ pixels: UnsafeRawPointer, count: Int, weight: Float,
                                            into accumulator: UnsafeMutablePointer<SIMD4<Float>>) {
        let sums = UnsafeMutableRawPointer(accumulator)
        var x = 0
        while x + 4 <= count {
            let bytes = pixels.loadUnaligned(fromByteOffset: 4 * x, as: SIMD16<UInt8>.self)
            let values = SIMD16<Float>(SIMD16<Int32>(truncatingIfNeeded: bytes))
            let offset = x * MemoryLayout<SIMD4<Float>>.stride
            let sum = sums.loadUnaligned(fromByteOffset: offset, as: SIMD16<Float>.self) + values * weight
            sums.storeBytes(of: sum, toByteOffset: offset, as: SIMD16<Float>.self)
            x += 4
        }
        while x < count {
            accumulator[x] += pixelValue(pixels, x) * weight
            x += 1
        }
    }

    /// Pixel `x` of an RGBA8 row as four floats.
    @inline(__always)
    private static func pixelValue(_ row: UnsafeRawPointer, _ x: Int) -> SIMD4<Float> {
        let bytes = row.loadUnaligned(fromByteOffset: 4 * x, as: SIMD4<UInt8>.self)
        return SIMD4<Float>(SIMD4<Int32>(truncatingIfNeeded: bytes))
    }

    /// Rounds to the nearest byte; sums of weights that drift past 255 are clamped.
    @inline(__always)
    private static func quantize(_ value: Float) -> UInt8 {
        let rounded = value + 0.5
        if rounded >= 255 { return 255 }
        if rounded <= 0 { return 0 }
        return UInt8(rounded)
    }
}

/// For each output pixel along one axis: the run of source pixels it covers and the
/// fraction of the output pixel each one fills (the fractions sum to 1).
///
/// Output pixel `o` spans source positions [o * s / n, (o + 1) * s / n) for `s` source
/// and `n` output pixels; scaling everything by `n` keeps the overlaps integral and
/// exact, and each weight is overlap / s.
struct CoverageTable {
    private var firstSource: [Int]
    private var weightStart: [Int]
    private var weights: [Float]

    init(sourceCount: Int, outputCount: Int) {
        firstSource = []
        weightStart = []
        weights = []
        firstSource.reserveCapacity(outputCount)
        weightStart.reserveCapacity(outputCount + 1)
        weights.reserveCapacity(sourceCount + outputCount)
        let scale = Float(sourceCount)
        for output in 0..<outputCount {
            let begin = output * sourceCount
            let end = begin + sourceCount
            let first = begin / outputCount
            firstSource.append(first)
            weightStart.append(weights.count)
            var source = first
            while source * outputCount < end && source < sourceCount {
                let overlap = min(end, (source + 1) * outputCount) - max(begin, source * outputCount)
                weights.append(Float(overlap) / scale)
                source += 1
            }
        }
        weightStart.append(weights.count)
    }

    @inline(__always)
    func forEachSource(of output: Int, _ body: (_ source: Int, _ weight: Float) -> Void) {
        var source = firstSource[output]
        let range = weightStart[output]..<weightStart[output + 1]
        weights.withUnsafeBufferPointer { weights in
            for index in range {
                body(source, weights[index])
                source &+= 1
            }
        }
    }
}
