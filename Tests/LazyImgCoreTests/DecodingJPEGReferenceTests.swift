#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_2 // ThreadSanitizer group 2 (see the Makefile's tsan)
import CTurboJPEG
import LazyImgCore
import XCTest

/// Compares against libjpeg-turbo's own reference decodes in ../shared/corpus/jpeg.
final class DecodingJPEGReferenceTests: XCTestCase {
    /// A binary PPM (P6, maxval 255) as RGB rows.
    private func readPPM(_ bytes: [UInt8]) -> (width: Int, height: Int, rgb: ArraySlice<UInt8>)? {
        var fields: [Int] = []
        var index = 2
        guard bytes.starts(with: Array("P6".utf8)) else { return nil }
        while fields.count < 3 && index < bytes.count {
            if bytes[index] == UInt8(ascii: "#") {
                while index < bytes.count && bytes[index] != 0x0A { index += 1 }
            } else if (0x30...0x39).contains(bytes[index]) {
                var value = 0
                while index < bytes.count, (0x30...0x39).contains(bytes[index]) {
                    value = value * 10 + Int(bytes[index] - 0x30)
                    index += 1
                }
                fields.append(value)
                continue
            }
            index += 1
        }
        // Exactly one whitespace byte separates the header from the samples.
        index += 1
        guard fields.count == 3, fields[2] == 255, bytes.count - index == fields[0] * fields[1] * 3 else { return nil }
        return (fields[0], fields[1], bytes[index...])
    }

    /// jpeg/README.md: testimgint.ppm is `djpeg -dct int -fast -ppm testorig.jpg`, and
    /// djpeg's -fast (given last) selects the fast integer DCT and plain (not "fancy")
    /// chroma upsampling. No reference there was made with the decoder's settings
    /// (accurate DCT, fancy upsampling), so this test (1) shows the reference is
    /// exactly TurboJPEG with the matching fast flags, and (2) bounds how far the
    /// decoder's higher-quality output may differ from it.
    func testTestOrigAgainstDjpegReference() throws {
        let folder = try DecodingTestHelpers.corpus("jpeg")
        let jpeg = try DecodingTestHelpers.read(folder + "/testorig.jpg")
        let reference = try XCTUnwrap(readPPM(try DecodingTestHelpers.read(folder + "/testimgint.ppm")))
        XCTAssertEqual([reference.width, reference.height], [227, 149])

        let handle = try XCTUnwrap(tjInitDecompress())
        defer { tjDestroy(handle) }
        var fast = [UInt8](repeating: 0, count: 227 * 149 * 3)
        XCTAssertEqual(tjDecompress2(handle, jpeg, UInt(jpeg.count), &fast, 227, 0, 149, Int32(TJPF_RGB.rawValue),
                                     TJFLAG_FASTDCT | TJFLAG_FASTUPSAMPLE), 0)
        XCTAssertTrue(fast.elementsEqual(reference.rgb), "reference is not a fast-DCT, plain-upsampling decode")

        let image = try ImageDecoder().decode(jpeg, target: .original, limits: DecodeLimits())
        XCTAssertEqual([image.width, image.height, image.sourceWidth, image.sourceHeight], [227, 149, 227, 149])
        var worst = 0, total = 0
        var sample = reference.rgb.startIndex
        for y in 0..<image.height {
            let row = image.row(y)
            for x in 0..<image.width {
                for channel in 0..<3 {
                    let difference = abs(Int(row[4 * x + channel]) - Int(reference.rgb[sample + channel]))
                    worst = max(worst, difference)
                    total += difference
                }
                XCTAssertEqual(row[4 * x + 3], 255)
                sample += 3
            }
        }
        // Measured with libjpeg-turbo 2.1.5: max 36, mean 1.81. Fancy upsampling moves
        // chroma edges by up to a few tens of levels at sharp colour edges; on average
        // the two decodes differ by under 2 levels. Tolerances leave a little headroom.
        XCTAssertLessThanOrEqual(worst, 40)
        XCTAssertLessThanOrEqual(Double(total) / Double(image.width * image.height * 3), 2.5)
    }
}
#endif
