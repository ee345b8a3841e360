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
    static func downsample(source: UnsafeRawPointer, width sourceWidth: Int, height sourceHeight: Int,
                           stride sourceStride: Int, into output: DecodedImage) {
        downsample(source: source, width: sourceWidth, height: sourceHeight, stride: sourceStride,
                   into: output.pixels, width: output.width, height: output.height, stride: output.stride)
    }

    /// As above, into `outWidth` x `outHeight` pixels with rows `outStride` bytes apart.
    static func downsample(source: UnsafeRawPointer, width sourceWidth: Int, height sourceHeight: Int,
                           stride sourceStride: Int, into destination: UnsafeMutableRawPointer,
                           width outWidth: Int, height outHeight: Int, stride outStride: Int) {
        guard sourceWidth > 0, sourceHeight > 0, outWidth <= sourceWidth, outHeight <= sourceHeight else {
            return
        }
        if outWidth == sourceWidth && outHeight == sourceHeight {
            for y in 0..<outHeight {
                (destination + y * outStride).copyMemory(from: source + y * sourceStride, byteCount: outWidth * 4)
            }
            return
        }

        let columns = CoverageTable(sourceCount: sourceWidth, outputCount: outWidth)
        let rows = CoverageTable(sourceCount: sourceHeight, outputCount: outHeight)
        // One source-width row of premultiplied (r*a, g*a, b*a, a) sums, reused for
        // every output row: the vertical pass accumulates into it, the horizontal pass
        // reads it.
        let accumulator = UnsafeMutablePointer<Float>.allocate(capacity: sourceWidth * 4)
        defer { accumulator.deallocate() }

        for outY in 0..<outHeight {
            accumulator.initialize(repeating: 0, count: sourceWidth * 4)
            rows.forEachSource(of: outY) { sourceY, weight in
                let pixels = (source + sourceY * sourceStride).assumingMemoryBound(to: UInt8.self)
                for x in 0..<sourceWidth {
                    let alpha = Float(pixels[4 * x + 3])
                    let alphaWeight = alpha * weight
                    accumulator[4 * x] += Float(pixels[4 * x]) * alphaWeight
                    accumulator[4 * x + 1] += Float(pixels[4 * x + 1]) * alphaWeight
                    accumulator[4 * x + 2] += Float(pixels[4 * x + 2]) * alphaWeight
                    accumulator[4 * x + 3] += alphaWeight
                }
            }
            let out = (destination + outY * outStride).assumingMemoryBound(to: UInt8.self)
            for outX in 0..<outWidth {
                var red: Float = 0, green: Float = 0, blue: Float = 0, alpha: Float = 0
                columns.forEachSource(of: outX) { sourceX, weight in
                    red += accumulator[4 * sourceX] * weight
                    green += accumulator[4 * sourceX + 1] * weight
                    blue += accumulator[4 * sourceX + 2] * weight
                    alpha += accumulator[4 * sourceX + 3] * weight
                }
                if alpha > 0 {
                    out[4 * outX] = quantize(red / alpha)
                    out[4 * outX + 1] = quantize(green / alpha)
                    out[4 * outX + 2] = quantize(blue / alpha)
                } else {
                    out[4 * outX] = 0
                    out[4 * outX + 1] = 0
                    out[4 * outX + 2] = 0
                }
                out[4 * outX + 3] = quantize(alpha)
            }
        }
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
        let first = firstSource[output]
        for index in weightStart[output]..<weightStart[output + 1] {
            body(first + index - weightStart[output], weights[index])
        }
    }
}
