/// Whether the start of a PNG is enough for a box: when the file is interlaced and
/// its first Adam7 pass (ceil(w/8) x ceil(h/8)) covers the box, the bytes through
/// that pass are (`PNGInterlacedPrefix`); the picture is then pass 1 resampled, a
/// point sample of every 8th pixel rather than the whole file's average.
enum PNGFirstPass {
    /// How far a guess reaches past what has come, beyond its estimate: libspng
    /// reads image data a piece at a time, and a guess a little long costs less than
    /// another hop.
    static let slack = 2 << 10

    static func examine(_ bytes: [UInt8], for options: DecodeOptions) -> FirstPass.Verdict {
        guard options.target != .original else { return .needWholeFile }
        // The network's reading is bounded by the default limits; the decode that
        // follows applies the loader's own.
        let progress: PNGInterlacedPrefix.Progress?
        do {
            progress = try PNGInterlacedPrefix.examine(bytes)
        } catch {
            // Damage or a size past the limits: the whole file, whose decode says why.
            return .needWholeFile
        }
        guard let progress else { return .needMore(upTo: bytes.count.addingSaturating(slack)) }
        guard progress.isInterlaced, covers(progress, options) else { return .needWholeFile }
        if let end = progress.firstPassEnd { return .suffice(end: end) }
        return .needMore(upTo: guessedEnd(progress, have: bytes.count))
    }

    /// Whether pass 1 is at least the size `PNGDecoder` would shrink the file to.
    static func covers(_ progress: PNGInterlacedPrefix.Progress, _ options: DecodeOptions) -> Bool {
        let geometry = OutputGeometry(displayedWidth: progress.width, height: progress.height, orientation: .up,
                                      options: options)
        let pass = progress.firstPassSize
        return pass.width >= geometry.storedScaled.width && pass.height >= geometry.storedScaled.height
    }

    /// Where pass 1 should end: its rows so far extrapolated over its compressed
    /// bytes so far, an eighth more; before any row, 2 bytes a pass-1 pixel. Never
    /// less than half as much again as what came.
    private static func guessedEnd(_ progress: PNGInterlacedPrefix.Progress, have: Int) -> Int {
        let atLeast = have.addingSaturating(have / 2)
        let start = progress.imageDataStart ?? have
        guard progress.firstPassRows > 0, progress.bytesRead > start else {
            let pixels = progress.firstPassSize.width.multipliedSaturating(by: progress.firstPassSize.height)
            return max(atLeast, start.addingSaturating(pixels.multipliedSaturating(by: 2)).addingSaturating(slack))
        }
        let perRow = (progress.bytesRead - start) / progress.firstPassRows + 1
        let estimate = perRow.multipliedSaturating(by: progress.firstPassRowCount)
        return max(atLeast, start.addingSaturating(estimate.addingSaturating(estimate / 8)).addingSaturating(slack))
    }
}
