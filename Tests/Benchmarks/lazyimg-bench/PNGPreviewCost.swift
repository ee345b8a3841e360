import BenchSupport
import LazyImgCore

/// `lazyimg-bench png-previews`: what an interlaced PNG's preview costs a decode
/// thread, against the one inflate that only counts the start's passes.
///
/// Each PNG is re-encoded Adam7-interlaced and cut at a quarter, a half and three
/// quarters of its bytes. Per start, the fastest of `rounds` timings of: counting the
/// complete passes (`PNGInterlacedPrefix.examine` through pass 7: one inflate, no
/// pixels kept), the preview (`PNGInterlacedPrefix.preview` at the box: it counts and
/// paints in that one inflate), and counting then the preview (the two inflates the
/// preview used to take), each with its ratio to counting alone; the fastest of 5
/// timings of 40 ms each.
func pngPreviewCost(_ arguments: ArraySlice<String>) {
    let seconds = 0.2, rounds = 5
    var box = 192
    var paths = arguments
    if paths.first == "--box" {
        paths.removeFirst()
        guard let value = paths.popFirst().flatMap(Int.init), value > 0 else { fail("--box needs a positive integer") }
        box = value
    }
    guard !paths.isEmpty else { fail("png-previews: no input files") }
    let options = DecodeOptions(target: TargetSize(width: box, height: box))
    print("file cut passes count_us preview_us preview/count count+preview_us count+preview/count")
    for path in paths {
        guard let file = readFile(path), let png = PNGReencoder.reencode(file, interlaced: true) else {
            fail("cannot read or re-encode \(path)")
        }
        for quarter in 1...3 {
            let start = Array(png[..<(png.count * quarter / 4)])
            guard let passes = (try? PNGInterlacedPrefix.examine(start, throughPass: 7))??.completePasses else {
                fail("\(path): no passes in \(quarter)/4 of it")
            }
            let count: () -> DecodedImage? = {
                _ = try? PNGInterlacedPrefix.examine(start, throughPass: 7)
                return nil
            }
            let preview: () -> DecodedImage? = { try? PNGInterlacedPrefix.preview(start, options: options).image }
            let each = seconds / Double(rounds)
            let counting = fastestMicroseconds(count, seconds: each, rounds: rounds)
            let painted = fastestMicroseconds(preview, seconds: each, rounds: rounds)
            let both = fastestMicroseconds({ _ = count(); return preview() }, seconds: each, rounds: rounds)
            let name = path.split(separator: "/").last.map(String.init) ?? path
            print(name, "\(quarter)/4", passes, Int(counting.rounded()), Int(painted.rounded()),
                  ratio(painted, counting), Int(both.rounded()), ratio(both, counting))
        }
    }
}

private func ratio(_ value: Double, _ reference: Double) -> String {
    reference > 0 ? String(Double(Int((value / reference * 100).rounded())) / 100) : "n/a"
}
