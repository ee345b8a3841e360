#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_3 // ThreadSanitizer group 3 (see the Makefile's tsan)
import LazyImgCore
import TestSupport
import XCTest

/// What one decode holds at its peak (issue 7, item 6): PNG and non-interlaced GIF rows
/// are shrunk as they are decoded, so a 7000 x 7000 file never becomes a 196 MB buffer. (3000 x 3000
/// here, which debug builds decode in seconds; `make peak-memory` measures 7000 x 7000.)
final class DecodingPeakMemoryTests: XCTestCase {
    func testALargePNGThumbnailNeverHoldsTheFullSizeImage() throws {
        let png = makeBlankPNG(width: 3000, height: 3000)
        XCTAssertGreaterThan(png.count, 0)
        XCTAssertLessThan(png.count, 1 << 20)
        let decoder = ImageDecoder()
        let measured = try ProcessResources.measurePeakGrowth {
            try decoder.decode(png, target: TargetSize(width: 200, height: 200), limits: DecodeLimits())
        }
        guard let growth = measured.growth else { throw XCTSkip("/proc/self/clear_refs is not available") }
        let image = measured.result
        XCTAssertEqual([image.width, image.height, image.sourceWidth, image.sourceHeight], [200, 200, 3000, 3000])
        XCTAssertEqual(Array(image.row(100)[0..<4]), [128, 128, 128, 255])
        print("peak memory per decode: PNG 3000x3000 -> 200x200: \(growth / 1024) KiB (full size: 34 MiB)")
        // The full-size image would be 34 MiB; the row, its sums and the output are
        // well under 1 MiB. 8 MiB leaves room for malloc and the test's own threads.
        XCTAssertLessThan(growth, 8 << 20)
    }

    func testALargeGIFThumbnailNeverHoldsTheFullSizeCanvas() throws {
        // A 2000 x 2000 frame at (500, 500) on a 3000 x 3000 screen: rows above, below
        // and beside it are transparent canvas.
        let side = 2000
        let gif = makeGIF(screenWidth: 3000, screenHeight: 3000, palette: [[200, 100, 50]],
                          frames: [GIFTestFrame(left: 500, top: 500, width: side, height: side,
                                                indices: [UInt8](repeating: 0, count: side * side))])
        XCTAssertGreaterThan(gif.count, 0)
        let measured = try ProcessResources.measurePeakGrowth {
            try ImageDecoder().decode(gif, target: TargetSize(width: 300, height: 300), limits: DecodeLimits())
        }
        guard let growth = measured.growth else { throw XCTSkip("/proc/self/clear_refs is not available") }
        let image = measured.result
        XCTAssertEqual([image.width, image.height], [300, 300])
        XCTAssertEqual(Array(image.row(150)[600..<604]), [200, 100, 50, 255], "the frame, in the middle")
        XCTAssertEqual(image.row(10)[3], 0, "transparent canvas above it")
        XCTAssertFalse(image.isAnimated)
        print("peak memory per decode: GIF 3000x3000 -> 300x300: \(growth / 1024) KiB (full canvas: 34 MiB)")
        XCTAssertLessThan(growth, 8 << 20)
    }
}

extension DecodingPeakMemoryTests {
    /// An 8x8 PNG whose header is patched to claim `width` x `height` (and interlacing
    /// as asked); its pixel data is then far too short.
    private func pngClaiming(width: UInt32, height: UInt32, interlaced: Bool) -> [UInt8] {
        var png = makePNG(width: 8, height: 8, interlaced: interlaced)
        // Signature (8), IHDR length (4), "IHDR" (4), width (4), height (4), ..., CRC at 29.
        png.replaceSubrange(16..<20, with: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: width >> $0) })
        png.replaceSubrange(20..<24, with: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: height >> $0) })
        let crc = pngCRC(png[12..<29])
        png.replaceSubrange(29..<33, with: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: crc >> $0) })
        return png
    }

    func testInterlacedPNGsPast16MegapixelsAreRefusedBeforeAnyBuffer() {
        // 5000 x 4000 = 20 Mpx, under max_pixels: streamed when not interlaced (and
        // here cut short), refused when interlaced, since Adam7 needs the whole image.
        DecodingTestHelpers.assertDecodeThrows(.tooLarge, pngClaiming(width: 5000, height: 4000, interlaced: true))
        DecodingTestHelpers.assertDecodeThrows(.decode, pngClaiming(width: 5000, height: 4000, interlaced: false))
        DecodingTestHelpers.assertDecodeThrows(.decode, pngClaiming(width: 4000, height: 4000, interlaced: true),
                                               "16 Mpx is allowed: decoded whole, then cut short")
    }
}
#endif
