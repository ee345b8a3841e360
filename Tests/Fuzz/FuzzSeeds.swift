import Glibc
import TestSupport

/// Small AVIF and HEIC files of each kind the decoders handle, made by the test
/// encoders: the seeds of the `avif` and `heif` targets, written to `<dir>/avif` and
/// `<dir>/heif`.
enum FuzzSeeds {
    static func write(into directory: String) -> Bool {
        var seeds: [(folder: String, name: String, bytes: [UInt8])] = []
        let quadrants = TestPattern.grid(columns: 2, rows: 2, colours: [[255, 0, 0, 255], [0, 255, 0, 255],
                                                                        [0, 0, 255, 128], [255, 255, 255, 255]])
        #if LAZYIMG_AVIF
        seeds += [
            ("avif", "lossless.avif", makeAVIF(width: 24, height: 16, pattern: quadrants)),
            ("avif", "lossy-420.avif", makeAVIF(width: 33, height: 17, options: AVIFTestOptions(subsampled: true, lossless: false))),
            ("avif", "10-bit.avif", makeAVIF(width: 16, height: 16, options: AVIFTestOptions(depth: 10))),
            ("avif", "rotated-mirrored.avif", makeAVIF(width: 16, height: 8, pattern: quadrants,
                                                      options: AVIFTestOptions(rotation: 1, mirror: 0))),
            ("avif", "grid.avif", makeGridAVIF(columns: 2, rows: 1, cellWidth: 64, cellHeight: 64,
                                               colours: [[255, 0, 0, 255], [0, 0, 255, 255]])),
        ]
        #endif
        #if LAZYIMG_HEIF
        seeds += [
            ("heif", "plain.heic", makeHEIC(width: 24, height: 16, pattern: quadrants)),
            ("heif", "420.heic", makeHEIC(width: 33, height: 17, options: HEICTestOptions(chroma: "420"))),
            ("heif", "10-bit.heic", makeHEIC(width: 16, height: 16, options: HEICTestOptions(depth: 10))),
            ("heif", "rotated.heic", makeHEIC(width: 16, height: 8, pattern: quadrants,
                                             options: HEICTestOptions(orientation: 6))),
            ("heif", "grid.heic", makeGridHEIC(columns: 2, rows: 1, tileWidth: 64, tileHeight: 64,
                                               colours: [[255, 0, 0, 255], [0, 0, 255, 255]])),
        ]
        #endif
        for seed in seeds {
            let folder = directory + "/" + seed.folder
            mkdir(directory, 0o755)
            mkdir(folder, 0o755)
            guard !seed.bytes.isEmpty, let file = fopen(folder + "/" + seed.name, "wb") else { return false }
            let written = fwrite(seed.bytes, 1, seed.bytes.count, file)
            fclose(file)
            guard written == seed.bytes.count else { return false }
        }
        return true
    }
}
