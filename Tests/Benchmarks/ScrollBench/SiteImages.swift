import BenchSupport
import LazyImgCore

/// How the site encodes its photos.
public enum SiteEncoding: String, Sendable {
    case jpeg = "JPEG", progressiveJPEG = "progressive JPEG", png = "PNG", interlacedPNG = "interlaced (Adam7) PNG"
}

/// The files the site serves: the Kodak photos re-encoded as the web serves photos
/// (JPEG quality 90, 4:2:0, full 768x512 size; or PNG, plain or interlaced), or,
/// without the corpus, generated photo-sized images with enough texture to weigh
/// about as much.
public struct SiteImages: Sendable {
    /// The files (JPEG or PNG, as `encoding` says).
    public let jpegs: [[UInt8]]
    /// Where they came from, for the report.
    public let origin: String

    public var averageBytes: Int { jpegs.isEmpty ? 0 : jpegs.reduce(0) { $0 + $1.count } / jpegs.count }

    /// The kodim*.png files of `photosDirectory` when there are any, else `generatedCount`
    /// generated images of `width` x `height`.
    public static func make(photosDirectory: String?, generatedCount: Int = 24, width: Int = 768, height: Int = 512,
                            encoding: SiteEncoding = .jpeg) throws(BenchError) -> SiteImages {
        let kind = encoding.rawValue + (encoding == .jpeg || encoding == .progressiveJPEG ? " q90" : "")
        if let photosDirectory {
            let photos = (1...24).compactMap { index -> [UInt8]? in
                let name = index < 10 ? "kodim0\(index).png" : "kodim\(index).png"
                return readFile("\(photosDirectory)/\(name)").flatMap { reencode($0, encoding) }
            }
            if !photos.isEmpty {
                return SiteImages(jpegs: photos, origin: "\(photos.count) Kodak photos from \(photosDirectory), \(kind)")
            }
        }
        let generated = (0..<max(1, generatedCount)).compactMap { index in
            let pixels = texture(width: width, height: height, seed: UInt64(index))
            return encode(rgba: pixels, width: width, height: height, encoding)
        }
        guard !generated.isEmpty else { throw .setup("cannot encode the generated images") }
        return SiteImages(jpegs: generated, origin: "\(generated.count) generated \(width)x\(height) \(kind) files (no corpus)")
    }

    private static func reencode(_ file: [UInt8], _ encoding: SiteEncoding) -> [UInt8]? {
        switch encoding {
        case .jpeg, .progressiveJPEG: JPEGReencoder.reencode(file, progressive: encoding == .progressiveJPEG)
        case .png, .interlacedPNG: PNGReencoder.reencode(file, interlaced: encoding == .interlacedPNG)
        }
    }

    private static func encode(rgba pixels: [UInt8], width: Int, height: Int, _ encoding: SiteEncoding) -> [UInt8]? {
        switch encoding {
        case .jpeg, .progressiveJPEG:
            JPEGReencoder.encode(rgba: pixels, width: width, height: height, stride: width * 4,
                                 progressive: encoding == .progressiveJPEG)
        case .png, .interlacedPNG:
            PNGReencoder.encode(rgba: pixels, width: width, height: height, stride: width * 4,
                                interlaced: encoding == .interlacedPNG)
        }
    }

    /// Gradients under per-pixel noise: compresses about like a photo.
    private static func texture(width: Int, height: Int, seed: UInt64) -> [UInt8] {
        var random = SeededRandom(seed: seed)
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let base = y * width * 4 + x * 4
                let noise = random.next(below: 20)
                pixels[base] = UInt8((x * 200 / width + noise) & 0xFF)
                pixels[base + 1] = UInt8((y * 200 / height + noise) & 0xFF)
                pixels[base + 2] = UInt8((Int(seed) * 37 + noise * 2) & 0xFF)
            }
        }
        return pixels
    }
}
