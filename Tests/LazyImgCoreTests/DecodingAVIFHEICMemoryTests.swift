#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_5 // ThreadSanitizer group 5 (see the Makefile's tsan)
@testable import LazyImgCore
import TestSupport
import XCTest

/// What an AVIF or HEIC decode holds, measured in a process of its own, against what
/// `AVIFDecodeCost` and `HEICDecodeCost` say it will hold before decoding: the estimate
/// is never below the peak, a file over `max_decode_bytes` is refused before anything
/// is allocated, saying what it needs, and a 12-megapixel photo decodes with the
/// defaults. `make peak-memory` prints the table of peaks beside estimates.
final class DecodingAVIFHEICMemoryTests: XCTestCase {
    private static let childTest = "LazyImgCoreTests.DecodingAVIFHEICMemoryTests/testDecodeInThisProcess"
    private static let unlimited = DecodeLimits(maxPixels: 1 << 40, maxWorkingBytes: 1 << 40)

    /// A format this build decodes, and the files its tests need.
    private struct Format: Sendable {
        let name: String
        /// What its decoder counts for a file before decoding it.
        let cost: @Sendable ([UInt8]) throws -> Int
        /// A small file, decoded first in the child so that code paged in and tables
        /// made once per process are not counted.
        let warmUp: [UInt8]
        /// 4032 x 3024, 8-bit 4:2:0, as phones take them.
        let photo: @Sendable () -> [UInt8]
        /// 640 x 480, 8-bit 4:2:0.
        let small: [UInt8]
        /// 640 x 480 in 4 x 3 cells or tiles of 160 x 160.
        let grid: [UInt8]
        /// What says it is 8000 x 6000, 10-bit 4:4:4 (within max_pixels), but is small.
        let claiming: [UInt8]
    }

    /// The colours of a grid's cells, one each.
    private static let cellColours = (0..<64).map { [UInt8($0 * 4), 128, UInt8(255 - $0 * 4), 255] }

    #if LAZYIMG_AVIF
    private static let avifPhoto = makeAVIF(width: 4032, height: 3024,
                                            options: AVIFTestOptions(subsampled: true, lossless: false, quantizer: 30))
    private static let avif = Format(
        name: "AVIF", cost: { try AVIFDecoder.cost(of: $0).bytes },
        warmUp: makeAVIF(width: 64, height: 64, pattern: .solid(red: 1, green: 2, blue: 3, alpha: 4)),
        photo: { avifPhoto }, small: makeAVIF(width: 640, height: 480, options: AVIFTestOptions(subsampled: true, lossless: false)),
        grid: makeGridAVIF(columns: 4, rows: 3, cellWidth: 160, cellHeight: 160, colours: Array(cellColours.prefix(12))),
        claiming: {
            // libavif's parse believes an ispe.
            var avif = makeAVIF(width: 64, height: 64, options: AVIFTestOptions(depth: 10, lossless: false))
            if let ispe = isoBoxOffset("ispe", in: avif) {
                avif.replaceSubrange(ispe + 12..<ispe + 20, with: bigEndian(8000, bytes: 4) + bigEndian(6000, bytes: 4))
            }
            return avif
        }())
    #endif
    #if LAZYIMG_HEIF
    private static let heicPhoto = makeHEIC(width: 4032, height: 3024, pattern: .gradient,
                                            options: HEICTestOptions(chroma: "420", quality: 80))
    private static let heic = Format(
        name: "HEIC", cost: { try HEIFDecoder.cost(of: $0).bytes },
        warmUp: makeHEIC(width: 64, height: 64, pattern: .solid(red: 1, green: 2, blue: 3, alpha: 4)),
        photo: { heicPhoto }, small: makeHEIC(width: 640, height: 480, options: HEICTestOptions(chroma: "420")),
        grid: makeGridHEIC(columns: 4, rows: 3, tileWidth: 160, tileHeight: 160, colours: Array(cellColours.prefix(12)),
                           options: HEICTestOptions(chroma: "420")),
        claiming: makeHEICClaiming(width: 8000, height: 6000, chromaFormat: 3, depth: 10))
    #endif

    /// The formats this build decodes and can make files of.
    private var formats: [Format] {
        var formats: [Format] = []
        #if LAZYIMG_AVIF
        formats.append(Self.avif)
        #endif
        #if LAZYIMG_HEIF
        if canEncodeHEIC { formats.append(Self.heic) }
        #endif
        return formats
    }

    func testDecodeInThisProcess() throws {
        try IsolatedDecode.runAsChild()
    }

    /// Measures `file` decoding under `limits` (none by default), prints its row of the
    /// table and asserts the estimate covers the peak.
    private func assertEstimateCovers(_ format: Format, _ name: String, _ file: [UInt8],
                                      limits: DecodeLimits = unlimited, line: UInt = #line) throws {
        try IsolatedDecode.assertEstimateCovers("\(format.name) \(name)", file, estimate: format.cost(file),
                                                warmUp: format.warmUp, limits: limits, childTest: Self.childTest,
                                                line: line)
    }

    func testATwelveMegapixelPhotoDecodesWithTheDefaults() throws {
        for format in formats {
            let photo = format.photo()
            XCTAssertLessThanOrEqual(try format.cost(photo), DecodeLimits.defaultMaxWorkingBytes, format.name)
            try assertEstimateCovers(format, "4032x3024 8-bit 4:2:0, default limits", photo, limits: DecodeLimits())
        }
        #if LAZYIMG_HEIF
        try XCTSkipUnless(canEncodeHEIC, "no HEVC encoder to make the grid with")
        // As iPhones store it: 8 x 6 tiles of 512 x 512, the canvas a little smaller.
        let colours = Array(Self.cellColours.prefix(48))
        let grid = makeGridHEIC(columns: 8, rows: 6, tileWidth: 512, tileHeight: 512, colours: colours,
                                options: HEICTestOptions(chroma: "420", quality: 80), canvas: (4032, 3024))
        try assertEstimateCovers(Self.heic, "4032x3024 8-bit 4:2:0 in 8x6 tiles, default limits", grid,
                                 limits: DecodeLimits())
        #endif
    }

    func testALowerMaxDecodeBytesRefusesWhatTheDefaultDecodes() throws {
        for format in formats {
            let decoder = ImageDecoder(), photo = format.photo()
            XCTAssertNoThrow(try decoder.decode(photo, target: IsolatedDecode.box, limits: DecodeLimits()), format.name)
            XCTAssertThrowsError(try decoder.decode(photo, target: IsolatedDecode.box,
                                                    limits: DecodeLimits(maxWorkingBytes: 16 << 20))) { error in
                XCTAssertEqual(error as? LoaderError, .tooLarge, format.name)
            }
            XCTAssertTrue(decoder.lastFailureReason.hasPrefix("\(format.name) of 4032x3024, 8-bit 4:2:0: needs "),
                          decoder.lastFailureReason)
            XCTAssertTrue(decoder.lastFailureReason.hasSuffix(", over the 16 MiB a decode may hold"),
                          decoder.lastFailureReason)
        }
    }

    func testAtItsEstimateAFileDecodesAndOneByteLessItIsRefused() throws {
        for format in formats {
            for (kind, file) in [("one image", format.small), ("grid", format.grid)] {
                let needs = try format.cost(file)
                let image = try ImageDecoder().decode(file, target: IsolatedDecode.box,
                                                      limits: DecodeLimits(maxWorkingBytes: needs))
                XCTAssertEqual([image.width, image.height], [64, 48], "\(format.name) \(kind)")
                DecodingTestHelpers.assertDecodeThrows(.tooLarge, file, limits: DecodeLimits(maxWorkingBytes: needs - 1),
                                                       "\(format.name) \(kind)")
            }
        }
    }

    func testAFileOverTheLimitIsRefusedBeforeAnythingIsAllocatedSayingWhatItNeeds() throws {
        for format in formats {
            // 6 bytes a pixel of planes alone.
            let needs = try format.cost(format.claiming)
            XCTAssertGreaterThan(needs, 8000 * 6000 * 6, format.name)
            let outcome = try IsolatedDecode.measure(format.claiming, warmUp: format.warmUp, limits: DecodeLimits(),
                                                     childTest: Self.childTest)
            XCTAssertEqual(outcome.result, "tooLarge", format.name)
            XCTAssertEqual(outcome.reason, "\(format.name) of 8000x6000, 10-bit 4:4:4: needs \(ByteCount(needs)) to decode, "
                           + "over the 64 MiB a decode may hold")
            print("estimate: | \(format.name) 8000x6000 10-bit 4:4:4, refused | \(ByteCount(outcome.growth)) | "
                  + "\(ByteCount(needs)) | - |")
            // Code paged in and small tables: nothing near what the pictures would need.
            XCTAssertLessThan(outcome.growth, 1 << 20, format.name)
        }
    }

    #if LAZYIMG_AVIF
    func testTheAVIFEstimateCoversThePeakOfEveryKind() throws {
        let format = Self.avif
        let photo = AVIFTestOptions(subsampled: true, lossless: false, quantizer: 30)
        for side in [256, 1024, 2048, 3000] {
            try assertEstimateCovers(format, "8-bit 4:2:0 \(side)x\(side)", makeAVIF(width: side, height: side, options: photo))
        }
        try assertEstimateCovers(format, "8-bit 4:4:4 2048x2048",
                                 makeAVIF(width: 2048, height: 2048, options: AVIFTestOptions(lossless: false, quantizer: 30)))
        try assertEstimateCovers(format, "10-bit 4:2:0 2048x2048",
                                 makeAVIF(width: 2048, height: 2048,
                                          options: AVIFTestOptions(depth: 10, subsampled: true, lossless: false, quantizer: 30)))
        let alpha = TestPattern.checkerboard(cell: 100, first: [200, 100, 50, 255], second: [20, 40, 60, 100])
        try assertEstimateCovers(format, "10-bit 4:4:4 with alpha, irot, 2000x2000",
                                 makeAVIF(width: 2000, height: 2000, pattern: alpha,
                                          options: AVIFTestOptions(depth: 10, lossless: false, quantizer: 30, rotation: 1)))
        try assertEstimateCovers(format, "12-bit 4:2:0 with alpha 2048x2048",
                                 makeAVIF(width: 2048, height: 2048, pattern: alpha,
                                          options: AVIFTestOptions(depth: 12, subsampled: true, lossless: false, quantizer: 30)))
        let colours = Self.cellColours
        try assertEstimateCovers(format, "grid of 8x8 cells of 250x250, 4:4:4",
                                 makeGridAVIF(columns: 8, rows: 8, cellWidth: 250, cellHeight: 250, colours: colours))
        try assertEstimateCovers(format, "grid of 4x3 cells of 512x512, 4:4:4",
                                 makeGridAVIF(columns: 4, rows: 3, cellWidth: 512, cellHeight: 512,
                                              colours: Array(colours.prefix(12))))
    }
    #endif

    #if LAZYIMG_HEIF
    func testTheHEICEstimateCoversThePeakOfEveryKind() throws {
        try XCTSkipUnless(canEncodeHEIC, "this libheif has no HEVC encoder to make test files with")
        let format = Self.heic
        let photo = TestPattern.gradient
        let subsampled = HEICTestOptions(chroma: "420", quality: 70)
        for side in [256, 1024, 2048, 3000] {
            try assertEstimateCovers(format, "8-bit 4:2:0 \(side)x\(side)",
                                     makeHEIC(width: side, height: side, pattern: photo, options: subsampled))
        }
        // libheif's encoder fails with 16 x 16 trees; 32 x 32 are the smallest it makes.
        try assertEstimateCovers(format, "8-bit 4:2:0 2048x2048, 32x32 coding trees",
                                 makeHEIC(width: 2048, height: 2048, pattern: photo,
                                          options: HEICTestOptions(chroma: "420", quality: 70,
                                                                   x265: ["ctu": "32", "min-cu-size": "8"])))
        try assertEstimateCovers(format, "8-bit 4:4:4 2048x2048",
                                 makeHEIC(width: 2048, height: 2048, pattern: photo, options: HEICTestOptions(quality: 70)))
        try assertEstimateCovers(format, "10-bit 4:2:0 2048x2048",
                                 makeHEIC(width: 2048, height: 2048, pattern: photo,
                                          options: HEICTestOptions(depth: 10, chroma: "420", quality: 70)))
        try assertEstimateCovers(format, "12-bit 4:2:2 2048x2048",
                                 makeHEIC(width: 2048, height: 2048, pattern: photo,
                                          options: HEICTestOptions(depth: 12, chroma: "422", quality: 70)))
        let alpha = TestPattern.checkerboard(cell: 100, first: [200, 100, 50, 255], second: [20, 40, 60, 100])
        try assertEstimateCovers(format, "10-bit 4:4:4 with alpha, irot, 2000x2000",
                                 makeHEIC(width: 2000, height: 2000, pattern: alpha,
                                          options: HEICTestOptions(depth: 10, quality: 70, orientation: 6)))
        try assertEstimateCovers(format, "8-bit 4:2:0 with alpha 2048x2048",
                                 makeHEIC(width: 2048, height: 2048, pattern: alpha, options: subsampled))
        let colours = Array(Self.cellColours.prefix(48))
        try assertEstimateCovers(format, "grid of 8x6 tiles of 512x512, 8-bit 4:2:0",
                                 makeGridHEIC(columns: 8, rows: 6, tileWidth: 512, tileHeight: 512, colours: colours,
                                              options: subsampled))
        try assertEstimateCovers(format, "grid of 16x3 tiles of 256x256, 8-bit 4:2:0",
                                 makeGridHEIC(columns: 16, rows: 3, tileWidth: 256, tileHeight: 256, colours: colours,
                                              options: subsampled))
    }
    #endif
}
#endif
