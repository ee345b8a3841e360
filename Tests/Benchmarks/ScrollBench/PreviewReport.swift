import LazyImgCore

/// What progressive previews (lazyimg-previews) give a list: when a settled screen
/// first shows a picture in every cell, when it shows the final images, the bytes,
/// and how close each preview is to the final picture.
public enum PreviewReport {
    /// One row per loader of a trace: TTV to a shown picture (a preview or the image)
    /// and to the final images, ratios against LazyTable's TTV in the same run.
    public static func table(_ trace: ScrollTrace, _ runs: [TraceRun], command: String) -> String {
        let lazyTable = runs.first { $0.loader == LoaderKind.lazyTable.rawValue }
        var table = TextTable(header: ["loader", "1st shown", "final", "/LT", "TTV shown", "p95", "/LT", "TTV final",
                                       "p95", "/LT", "unfin", "blank rest", "not final", "KiB/img", "/LT", "previews"])
        table.add(["", "ms p50", "ms p50", "shown", "ms p50", "ms", "", "ms p50", "ms", "", "shown/final", "cell-fr",
                   "cell-fr", "shown", "", "events"])
        for run in runs {
            let first = percentile(run.firstScreenShown, 0.5), firstFinal = percentile(run.firstScreenFinal, 0.5)
            let shown = percentile(run.timeToVisible, 0.5), final = percentile(run.timeToFinal, 0.5)
            let baseline = lazyTable.map { percentile($0.timeToVisible, 0.5) }
            let firstBaseline = lazyTable.map { percentile($0.firstScreenShown, 0.5) }
            table.add([
                run.loader, fixed(first, 0), fixed(firstFinal, 0), firstBaseline.map { ratio(first, $0) } ?? "-",
                fixed(shown, 0), fixed(percentile(run.timeToVisible, 0.95), 0), baseline.map { ratio(shown, $0) } ?? "-",
                fixed(final, 0), fixed(percentile(run.timeToFinal, 0.95), 0), baseline.map { ratio(final, $0) } ?? "-",
                "\(run.unfinished)/\(run.unfinishedFinal)", String(run.blankAtRest), String(run.notFinalAtRest),
                fixed(run.kibibytesPerShownImage, 1),
                lazyTable.map { ratio(run.kibibytesPerShownImage, $0.kibibytesPerShownImage) } ?? "-",
                String(run.tally.previews),
            ])
        }
        return "\(trace.name), previews: the first screen (before the list moves) and each settle, to every visible"
            + " cell showing a picture (shown: a preview or the image) and its final image (final); /LT against"
            + " LazyTable's time to its images; not final = visible cells at rest without their final image\n"
            + "    reproduce: \(command)\n" + table.render()
    }

    /// Per number of scans (a progressive JPEG's) or Adam7 passes (an interlaced
    /// PNG's): the prefix a preview of that many decodes, its size against the file's,
    /// and its PSNR against the whole file, both at `box`.
    public static func qualityTable(_ images: SiteImages, box: Int, command: String) -> String {
        let options = DecodeOptions(target: TargetSize(width: box, height: box))
        var byCount: [Int: (bytes: Int, fileBytes: Int, scores: [Double])] = [:]
        var unit = "scans"
        for file in images.jpegs {
            guard let whole = try? ImageDecoder().decode(file, options: options, limits: DecodeLimits()) else { continue }
            let isPNG = ImageFormat(sniffing: file) == .png
            if isPNG { unit = "passes" }
            for (count, end, preview) in isPNG ? passPreviews(file, options) : scanPreviews(file, options) {
                var entry = byCount[count] ?? (0, 0, [])
                entry.bytes += end
                entry.fileBytes += file.count
                entry.scores.append(FirstPassQuality.psnr(preview, whole))
                byCount[count] = entry
            }
        }
        var table = TextTable(header: [unit, "images", "prefix", "of file", "PSNR min", "mean", "max"])
        table.add(["", "", "KiB", "", "dB", "dB", "dB"])
        for count in byCount.keys.sorted() {
            guard let entry = byCount[count] else { continue }
            let served = Double(max(1, entry.scores.count))
            table.add([String(count), "\(entry.scores.count)/\(images.jpegs.count)",
                       fixed(Double(entry.bytes) / 1024 / served, 1), ratio(Double(entry.bytes), Double(entry.fileBytes)),
                       fixed(entry.scores.min() ?? 0, 1), fixed(entry.scores.reduce(0, +) / served, 1),
                       fixed(entry.scores.max() ?? 0, 1)])
        }
        let how = unit == "passes"
            ? "the start through the first n Adam7 passes (where libspng had read when each ended), painted as the loader paints it"
            : "the first n scans (an EOI after them), decoded by the same decoder"
        return "previews against the whole file at \(box) px: \(how) (PSNR over R, G, B; 99 = identical)\n"
            + "    reproduce: \(command)\n" + table.render()
    }

    /// A progressive JPEG's preview after each complete scan, as the loader decodes it.
    private static func scanPreviews(_ jpeg: [UInt8], _ options: DecodeOptions) -> [(Int, Int, DecodedImage)] {
        scanEnds(jpeg).enumerated().compactMap { index, end in
            (try? ImageDecoder().decode(Array(jpeg[..<end]) + [0xFF, 0xD9], options: options, limits: DecodeLimits()))
                .map { (index + 1, end, $0) }
        }
    }

    /// An interlaced PNG's preview after each complete pass but the last (all seven
    /// are the final image), as the loader decodes it.
    private static func passPreviews(_ png: [UInt8], _ options: DecodeOptions) -> [(Int, Int, DecodedImage)] {
        guard let ends = (try? PNGInterlacedPrefix.examine(png, throughPass: 7))??.passEnds else { return [] }
        return ends.dropLast().compactMap { end in
            (try? PNGInterlacedPrefix.preview(Array(png[..<end]), options: options)).map { ($0.passes, end, $0.image) }
        }
    }

    /// Where each complete scan ends, as the network thread finds them byte by byte.
    private static func scanEnds(_ jpeg: [UInt8]) -> [Int] {
        var progress = JPEGScanProgress()
        var ends: [Int] = []
        for have in 1...max(1, jpeg.count) {
            if let end = jpeg[..<have].withUnsafeBufferPointer({ progress.advance(over: $0) }) { ends.append(end) }
        }
        return ends
    }
}
