import Glibc
import LazyImgCore

/// The picture a cell gets from a file's first pass (a progressive JPEG's DC scans,
/// an interlaced PNG's first Adam7 pass) against the whole file's, decoded for the
/// same box: what fetch_first_pass_only costs in quality, and what it saves in bytes.
public enum FirstPassQuality {
    /// One table row per box: the site's images that the first pass serves at that box.
    public static func table(_ images: SiteImages, boxes: [Int], command: String) -> String {
        var table = TextTable(header: ["box", "images", "1st pass", "file", "pass/file", "PSNR min", "mean", "max"])
        table.add(["px", "served", "KiB", "KiB", "", "dB", "dB", "dB"])
        for box in boxes {
            let options = DecodeOptions(target: TargetSize(width: box, height: box))
            var prefixBytes = 0, fileBytes = 0
            var scores: [Double] = []
            for file in images.jpegs {
                guard case .suffice(let end) = FirstPass.examine(file, for: options),
                      let start = try? decodeStart(FirstPass.decodable(file, upTo: end), options),
                      let whole = try? ImageDecoder().decode(file, options: options, limits: DecodeLimits())
                else { continue }
                prefixBytes += end
                fileBytes += file.count
                scores.append(psnr(start, whole))
            }
            let count = max(1, scores.count)
            table.add([String(box), "\(scores.count)/\(images.jpegs.count)",
                       fixed(Double(prefixBytes) / 1024 / Double(count), 1), fixed(Double(fileBytes) / 1024 / Double(count), 1),
                       ratio(Double(prefixBytes), Double(fileBytes)), fixed(scores.min() ?? 0, 1),
                       fixed(scores.reduce(0, +) / Double(count), 1), fixed(scores.max() ?? 0, 1)])
        }
        return "First pass only (DC scans, or Adam7 pass 1) against the whole file, decoded for the same box (PSNR over R, G, B)\n"
            + "    reproduce: \(command)\n" + table.render()
    }

    /// A start as the loader decodes it (`DownloadOrigin.firstPass`).
    private static func decodeStart(_ start: [UInt8], _ options: DecodeOptions) throws(LoaderError) -> DecodedImage {
        ImageFormat(sniffing: start) == .png
            ? try PNGInterlacedPrefix.decodeFirstPass(start, options: options)
            : try ImageDecoder().decode(start, options: options, limits: DecodeLimits())
    }

    /// Peak signal to noise over R, G and B, in dB; 99 for identical pictures.
    static func psnr(_ a: DecodedImage, _ b: DecodedImage) -> Double {
        guard a.width == b.width, a.height == b.height else { return 0 }
        var squares = 0.0, count = 0.0
        for y in 0..<a.height {
            for (index, (p, q)) in zip(a.row(y), b.row(y)).enumerated() where index % 4 != 3 {
                let difference = Double(Int(p) - Int(q))
                squares += difference * difference
                count += 1
            }
        }
        guard squares > 0 else { return 99 }
        return 10 * log10(255 * 255 / (squares / count))
    }
}
