#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_5 // ThreadSanitizer group 5 (see the Makefile's tsan)
#if LAZYIMG_HEIF
@_spi(Testing) @testable import LazyImgCore
import TestSupport
import XCTest

/// What a HEIC decode holds, measured in a process of its own, against what
/// `HEICDecodeCost` says it will hold before decoding: the estimate is never below the
/// peak, a file over `max_decode_bytes` is refused before anything is allocated, and a
/// phone's 12-megapixel photo decodes with the defaults.
final class DecodingHEICMemoryTests: XCTestCase {
    private static let childTest = "LazyImgCoreTests.DecodingHEICMemoryTests/testDecodeInThisProcess"
    private static let unlimited = DecodeLimits(maxPixels: 1 << 40, maxWorkingBytes: 1 << 40)
    private static let warmUp = makeHEIC(width: 64, height: 64,
                                         pattern: .solid(red: 1, green: 2, blue: 3, alpha: 4))

    override func setUpWithError() throws {
        try XCTSkipUnless(canEncodeHEIC, "this libheif has no HEVC encoder to make test files with")
    }

    func testDecodeInThisProcess() throws {
        try IsolatedDecode.runAsChild()
    }

    /// Measures `heic` decoding without a limit, prints the row of the table and
    /// asserts the estimate covers the peak.
    private func assertEstimateCovers(_ name: String, _ heic: [UInt8], line: UInt = #line) throws {
        XCTAssertFalse(heic.isEmpty, name, line: line)
        let cost = try HEIFDecoder.cost(of: heic)
        let outcome = try IsolatedDecode.measure(heic, warmUp: Self.warmUp, limits: Self.unlimited, childTest: Self.childTest)
        XCTAssertTrue(outcome.result.hasPrefix("ok "), "\(name): \(outcome.result)", line: line)
        let ratio = Double(cost.bytes) / Double(max(1, outcome.growth))
        print("heic-memory: | \(name) | \(ByteCount(outcome.growth)) | \(ByteCount(cost.bytes)) | "
              + "\((ratio * 100).rounded() / 100) |")
        XCTAssertLessThanOrEqual(outcome.growth, cost.bytes, "\(name): the estimate is below the peak", line: line)
    }

    func testTheEstimateCoversThePeakOfEveryKind() throws {
        let photo = TestPattern.gradient
        for side in [256, 1024, 2048, 3000] {
            try assertEstimateCovers("8-bit 4:2:0 \(side)x\(side)",
                                     makeHEIC(width: side, height: side, pattern: photo,
                                              options: HEICTestOptions(chroma: "420", quality: 70)))
        }
        // libheif's encoder fails with 16 x 16 trees; 32 x 32 are the smallest it makes.
        try assertEstimateCovers("8-bit 4:2:0 2048x2048, 32x32 coding trees",
                                 makeHEIC(width: 2048, height: 2048, pattern: photo,
                                          options: HEICTestOptions(chroma: "420", quality: 70,
                                                                   x265: ["ctu": "32", "min-cu-size": "8"])))
        try assertEstimateCovers("8-bit 4:4:4 2048x2048",
                                 makeHEIC(width: 2048, height: 2048, pattern: photo, options: HEICTestOptions(quality: 70)))
        try assertEstimateCovers("10-bit 4:2:0 2048x2048",
                                 makeHEIC(width: 2048, height: 2048, pattern: photo,
                                          options: HEICTestOptions(depth: 10, chroma: "420", quality: 70)))
        try assertEstimateCovers("12-bit 4:2:2 2048x2048",
                                 makeHEIC(width: 2048, height: 2048, pattern: photo,
                                          options: HEICTestOptions(depth: 12, chroma: "422", quality: 70)))
        let alpha = TestPattern.checkerboard(cell: 100, first: [200, 100, 50, 255], second: [20, 40, 60, 100])
        try assertEstimateCovers("10-bit 4:4:4 with alpha, irot, 2000x2000",
                                 makeHEIC(width: 2000, height: 2000, pattern: alpha,
                                          options: HEICTestOptions(depth: 10, quality: 70, orientation: 6)))
        try assertEstimateCovers("8-bit 4:2:0 with alpha 2048x2048",
                                 makeHEIC(width: 2048, height: 2048, pattern: alpha,
                                          options: HEICTestOptions(chroma: "420", quality: 70)))
        let colours = (0..<48).map { [UInt8($0 * 5), 128, UInt8(255 - $0 * 5), 255] }
        try assertEstimateCovers("grid of 8x6 tiles of 512x512, 8-bit 4:2:0",
                                 makeGridHEIC(columns: 8, rows: 6, tileWidth: 512, tileHeight: 512, colours: colours,
                                              options: HEICTestOptions(chroma: "420", quality: 70)))
        try assertEstimateCovers("grid of 16x3 tiles of 256x256, 8-bit 4:2:0",
                                 makeGridHEIC(columns: 16, rows: 3, tileWidth: 256, tileHeight: 256, colours: colours,
                                              options: HEICTestOptions(chroma: "420", quality: 70)))
    }

    /// A phone's 12-megapixel photo, as one picture and as the grid of 512-pixel tiles
    /// iPhones write (8 x 6 tiles, the canvas a little smaller).
    private static let phonePhoto = makeHEIC(width: 4032, height: 3024, pattern: .gradient,
                                             options: HEICTestOptions(chroma: "420", quality: 80))

    func testATwelveMegapixelPhoneHEICDecodesWithTheDefaults() throws {
        let colours = (0..<48).map { [UInt8($0 * 5), 128, UInt8(255 - $0 * 5), 255] }
        let grid = makeGridHEIC(columns: 8, rows: 6, tileWidth: 512, tileHeight: 512, colours: colours,
                                options: HEICTestOptions(chroma: "420", quality: 80), canvas: (4032, 3024))
        for (name, heic) in [("one picture", Self.phonePhoto), ("grid", grid)] {
            XCTAssertFalse(heic.isEmpty, name)
            let cost = try HEIFDecoder.cost(of: heic)
            XCTAssertLessThanOrEqual(cost.bytes, DecodeLimits.defaultMaxWorkingBytes, "\(name): \(cost.description)")
            let outcome = try IsolatedDecode.measure(heic, warmUp: Self.warmUp, limits: DecodeLimits(),
                                                     childTest: Self.childTest)
            XCTAssertEqual(outcome.result, "ok 64x48", name)
            print("heic-memory: | 4032x3024 8-bit 4:2:0, \(name) | \(ByteCount(outcome.growth)) | \(ByteCount(cost.bytes)) | "
                  + "\((Double(cost.bytes) / Double(max(1, outcome.growth)) * 100).rounded() / 100) |")
            XCTAssertLessThanOrEqual(outcome.growth, cost.bytes, name)
        }
    }

    func testALowerMaxDecodeBytesRefusesWhatTheDefaultDecodes() throws {
        let decoder = ImageDecoder()
        XCTAssertNoThrow(try decoder.decode(Self.phonePhoto, target: IsolatedDecode.box, limits: DecodeLimits()))
        XCTAssertThrowsError(try decoder.decode(Self.phonePhoto, target: IsolatedDecode.box,
                                                limits: DecodeLimits(maxWorkingBytes: 32 << 20))) { error in
            XCTAssertEqual(error as? LoaderError, .tooLarge)
        }
        XCTAssertTrue(decoder.lastFailureReason.hasPrefix("HEIC of 4032x3024, 8-bit 4:2:0: needs "), decoder.lastFailureReason)
        XCTAssertTrue(decoder.lastFailureReason.hasSuffix(", over the 32 MiB a decode may hold"), decoder.lastFailureReason)
    }

    func testAtItsEstimateAFileDecodesAndOneByteLessItIsRefused() throws {
        let heic = makeHEIC(width: 640, height: 480, options: HEICTestOptions(chroma: "420"))
        let needs = try HEIFDecoder.cost(of: heic).bytes
        let image = try ImageDecoder().decode(heic, target: IsolatedDecode.box, limits: DecodeLimits(maxWorkingBytes: needs))
        XCTAssertEqual([image.width, image.height], [64, 48])
        DecodingTestHelpers.assertDecodeThrows(.tooLarge, heic, limits: DecodeLimits(maxWorkingBytes: needs - 1))
    }

    func testAFileOverTheLimitIsRefusedBeforeAnythingIsAllocatedSayingWhatItNeeds() throws {
        // Within max_pixels (48 of 50 Mpx), but 6 bytes a pixel of planes alone.
        let heic = makeHEICClaiming(width: 8000, height: 6000, chromaFormat: 3, depth: 10)
        let needs = try HEIFDecoder.cost(of: heic).bytes
        XCTAssertGreaterThan(needs, 8000 * 6000 * 6)
        let outcome = try IsolatedDecode.measure(heic, warmUp: Self.warmUp, limits: DecodeLimits(), childTest: Self.childTest)
        XCTAssertEqual(outcome.result, "tooLarge")
        XCTAssertEqual(outcome.reason, "HEIC of 8000x6000, 10-bit 4:4:4: needs \(ByteCount(needs)) to decode, "
                       + "over the 64 MiB a decode may hold")
        print("heic-memory: | 8000x6000 10-bit 4:4:4, refused | \(ByteCount(outcome.growth)) | \(ByteCount(needs)) | - |")
        // Code paged in and small tables: nothing near what the picture would need.
        XCTAssertLessThan(outcome.growth, 1 << 20)
    }
}
#endif
#endif
