import Glibc
import LazyImgCore

/// The picture a cell gets from a progressive JPEG's DC scans against the whole
/// file's, decoded for the same box by the same decoder: what fetch_first_pass_only
/// costs in quality, and what it saves in bytes.
public enum DCScanQuality {
    /// One table row per box: the site's images that the DC scans serve at that box.
    public static func table(_ images: SiteImages, boxes: [Int], command: String) -> String {
        var table = TextTable(header: ["box", "images", "DC-only", "file", "DC/file", "PSNR min", "mean", "max"])
        table.add(["px", "served", "KiB", "KiB", "", "dB", "dB", "dB"])
        for box in boxes {
            let options = DecodeOptions(target: TargetSize(width: box, height: box))
            var prefixBytes = 0, fileBytes = 0
            var scores: [Double] = []
            for jpeg in images.jpegs {
                guard case .suffice(let end) = JPEGDCScans.examine(jpeg, for: options),
                      let start = try? ImageDecoder().decode(JPEGDCScans.decodable(jpeg, upTo: end), options: options,
                                                             limits: DecodeLimits()),
                      let whole = try? ImageDecoder().decode(jpeg, options: options, limits: DecodeLimits())
                else { continue }
                prefixBytes += end
                fileBytes += jpeg.count
                scores.append(psnr(start, whole))
            }
            let count = max(1, scores.count)
            table.add([String(box), "\(scores.count)/\(images.jpegs.count)",
                       fixed(Double(prefixBytes) / 1024 / Double(count), 1), fixed(Double(fileBytes) / 1024 / Double(count), 1),
                       ratio(Double(prefixBytes), Double(fileBytes)), fixed(scores.min() ?? 0, 1),
                       fixed(scores.reduce(0, +) / Double(count), 1), fixed(scores.max() ?? 0, 1)])
        }
        return "DC scans only against the whole file, decoded for the same box (PSNR over R, G, B)\n"
            + "    reproduce: \(command)\n" + table.render()
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
