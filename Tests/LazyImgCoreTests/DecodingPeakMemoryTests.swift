import LazyImgCore
import TestSupport
import XCTest

/// What one decode holds at its peak (issue 7, item 6): a PNG is shrunk row by row as
/// libspng decodes it, so a 7000 x 7000 file never becomes a 196 MB buffer. (3000 x 3000
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
}
