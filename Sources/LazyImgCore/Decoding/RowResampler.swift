/// The resampler's box filter fed one source row at a time, top to bottom.
///
/// Codecs that decode row by row (libspng's progressive mode) hand each row over as it
/// is made, so the full-size image never exists: a 7000 x 7000 PNG shrunk to a
/// thumbnail needs one 28 KB row, one row of sums and the output, not 196 MB. The
/// whole-image `Resampler.downsample` feeds its rows through here too, so both give
/// the same bytes.
///
/// Output row `o` covers source rows [o * s / n, (o + 1) * s / n) for `s` source and
/// `n` output rows. It is complete once the source row holding its lower edge has been
/// added, before any later output row receives anything, so one row of sums suffices.
final class RowResampler {
    private let sourceWidth: Int
    private let sourceHeight: Int
    private let opaque: Bool
    private let destination: UnsafeMutableRawPointer
    private let outWidth: Int
    private let outHeight: Int
    private let outStride: Int
    private let columns: CoverageTable
    /// One source-width row of (r*a, g*a, b*a, a) sums (plain (r, g, b, a) when opaque)
    /// for the output row being built.
    private let accumulator: UnsafeMutablePointer<SIMD4<Float>>
    /// Source rows added so far.
    private(set) var rowsAdded = 0
    /// The output row the accumulator is building.
    private var nextOutputRow = 0

    /// Shrinks (or copies, at equal size) `width` x `height` straight-alpha RGBA8 rows into
    /// `outWidth` x `outHeight` pixels at `destination`, rows `outStride` bytes apart.
    /// Nil unless the output is non-empty and no larger than the source on either side.
    init?(sourceWidth: Int, sourceHeight: Int, opaque: Bool, into destination: UnsafeMutableRawPointer,
          width outWidth: Int, height outHeight: Int, stride outStride: Int) {
        guard outWidth > 0, outHeight > 0, outWidth <= sourceWidth, outHeight <= sourceHeight else { return nil }
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.opaque = opaque
        self.destination = destination
        self.outWidth = outWidth
        self.outHeight = outHeight
        self.outStride = outStride
        columns = CoverageTable(sourceCount: sourceWidth, outputCount: outWidth)
        accumulator = .allocate(capacity: sourceWidth)
        accumulator.initialize(repeating: .zero, count: sourceWidth)
    }

    deinit {
        accumulator.deallocate()
    }

    /// Whether every source row has been added, so every output row is written.
    var isComplete: Bool { rowsAdded == sourceHeight }

    /// Adds the next source row (`4 * sourceWidth` bytes); extra rows are ignored.
    func add(_ row: UnsafeRawPointer) {
        add(row, nonzeroColumns: 0..<sourceWidth)
    }

    /// As above, for a row whose pixels outside `nonzeroColumns` are all zero
    /// (transparent canvas beside a GIF or WebP frame): those add nothing to the sums,
    /// so they are not visited.
    func add(_ row: UnsafeRawPointer, nonzeroColumns: Range<Int>) {
        let nonzero = nonzeroColumns.clamped(to: 0..<sourceWidth)
        let sourceY = rowsAdded
        guard sourceY < sourceHeight else { return }
        rowsAdded += 1
        if outWidth == sourceWidth && outHeight == sourceHeight {
            (destination + sourceY * outStride).copyMemory(from: row, byteCount: outWidth * 4)
            return
        }
        // In units of 1 / (s * n) of the image height: this row spans [begin, end), and
        // output row o spans [o * s, (o + 1) * s). Sides are below 2^31, so no overflow.
        let begin = sourceY * outHeight, end = begin + outHeight
        while nextOutputRow < outHeight {
            let outputBegin = nextOutputRow * sourceHeight, outputEnd = outputBegin + sourceHeight
            guard outputBegin < end else { return }
            let overlap = min(end, outputEnd) - max(begin, outputBegin)
            if overlap > 0 && !nonzero.isEmpty {
                let weight = Float(overlap) / Float(sourceHeight)
                let pixels = row + 4 * nonzero.lowerBound, sums = accumulator + nonzero.lowerBound
                if opaque {
                    Resampler.accumulateOpaqueRow(pixels, count: nonzero.count, weight: weight, into: sums)
                } else {
                    Resampler.accumulatePremultipliedRow(pixels, count: nonzero.count, weight: weight, into: sums)
                }
            }
            guard outputEnd <= end else { return }
            let out = (destination + nextOutputRow * outStride).assumingMemoryBound(to: UInt8.self)
            Resampler.writeRow(from: accumulator, columns: columns, opaque: opaque, into: out, width: outWidth)
            accumulator.update(repeating: .zero, count: sourceWidth)
            nextOutputRow += 1
        }
    }
}
