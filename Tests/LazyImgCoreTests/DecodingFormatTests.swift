#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_2 // ThreadSanitizer group 2 (see the Makefile's tsan)
import LazyImgCore
import TestSupport
import XCTest

final class DecodingFormatTests: XCTestCase {
    func testSniffsEachKnownSignature() {
        XCTAssertEqual(ImageFormat(sniffing: makeJPEG(width: 4, height: 4)), .jpeg)
        XCTAssertEqual(ImageFormat(sniffing: makePNG(width: 4, height: 4)), .png)
        XCTAssertEqual(ImageFormat(sniffing: Array("GIF87a".utf8) + [1, 0, 1, 0]), .gif)
        XCTAssertEqual(ImageFormat(sniffing: Array("GIF89a".utf8) + [1, 0, 1, 0]), .gif)
        XCTAssertEqual(ImageFormat(sniffing: Array("RIFF".utf8) + [0x20, 0, 0, 0] + Array("WEBPVP8 ".utf8)), .webp)
        XCTAssertEqual(ImageFormat(sniffing: Array("BM".utf8) + [0x36, 0, 0, 0]), .bmp)
        XCTAssertEqual(ImageFormat(sniffing: [0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0]), .tiff)
        XCTAssertEqual(ImageFormat(sniffing: [0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8]), .tiff)
        XCTAssertEqual(ImageFormat(sniffing: [0, 0, 0, 0x18] + Array("ftypheic".utf8) + [0, 0, 0, 0]), .heif)
        XCTAssertEqual(ImageFormat(sniffing: [0, 0, 0, 0x1C] + Array("ftypavif".utf8) + [0, 0, 0, 0]), .avif)
        // The generic brand: the compatible brands name the codec.
        XCTAssertEqual(ImageFormat(sniffing: [0, 0, 0, 0x18] + Array("ftypmif1".utf8) + [0, 0, 0, 0] + Array("avif".utf8)),
                       .avif)
        XCTAssertEqual(ImageFormat(sniffing: [0, 0, 0, 0x18] + Array("ftypmif1".utf8) + [0, 0, 0, 0] + Array("heic".utf8)),
                       .heif)
        // A compatible brand past the ftyp box's own size does not count.
        XCTAssertEqual(ImageFormat(sniffing: [0, 0, 0, 0x10] + Array("ftypmif1".utf8) + [0, 0, 0, 0] + Array("avif".utf8)),
                       .heif)
    }

    func testRejectsNearMisses() {
        XCTAssertNil(ImageFormat(sniffing: []))
        XCTAssertNil(ImageFormat(sniffing: [0xFF, 0xD8]))  // too short for the JPEG SOI + marker
        XCTAssertNil(ImageFormat(sniffing: Array("RIFF\u{20}\0\0\0WAVE".utf8)))
        XCTAssertNil(ImageFormat(sniffing: [0, 0, 0, 0x18] + Array("ftypisom".utf8)))  // an MP4 video
        XCTAssertNil(ImageFormat(sniffing: Array("<html><body>".utf8)))
    }

    func testJPEGPNGGIFAndWebPAreDecodableAndAVIFAndHEIFAsBuilt() {
        for format in [ImageFormat.jpeg, .png, .gif, .webp] {
            XCTAssertTrue(format.isDecodable, "\(format)")
        }
        for format in [ImageFormat.bmp, .tiff] {
            XCTAssertFalse(format.isDecodable, "\(format)")
        }
        #if LAZYIMG_AVIF
        XCTAssertTrue(ImageFormat.avif.isDecodable)
        #else
        XCTAssertFalse(ImageFormat.avif.isDecodable)
        #endif
        #if LAZYIMG_HEIF
        XCTAssertTrue(ImageFormat.heif.isDecodable)
        #else
        XCTAssertFalse(ImageFormat.heif.isDecodable)
        #endif
    }

    func testSniffedFormatHasANameForMessages() {
        let heif = [0, 0, 0, 0x18] + Array("ftypheic".utf8) + [0, 0, 0, 0]
        XCTAssertEqual(ImageFormat(sniffing: heif)?.name, "HEIF")
        XCTAssertEqual(ImageFormat.webp.name, "WebP")
        XCTAssertEqual(ImageFormat.gif.name, "GIF")
    }

    func testGarbageAndUndecodableFormatsAreUnsupported() {
        // A fixed pseudo-random byte string (a linear congruential sequence), so the
        // test is reproducible and starts with no known signature.
        var state: UInt32 = 12345
        let garbage: [UInt8] = (0..<4096).map { _ in
            state = state &* 1_103_515_245 &+ 12345
            return UInt8(truncatingIfNeeded: state >> 16)
        }
        XCTAssertNil(ImageFormat(sniffing: garbage))
        let bmp: [UInt8] = Array("BM".utf8) + [0x36, 0, 0, 0, 0, 0, 0, 0]
        let decoder = ImageDecoder()
        for (name, bytes) in [("garbage", garbage), ("bmp", bmp), ("empty", [])] {
            XCTAssertThrowsError(try decoder.decode(bytes, target: .original, limits: DecodeLimits()), name) { error in
                XCTAssertEqual(error as? LoaderError, .unsupported, name)
            }
        }
    }

    func testGIFWithoutAnImageIsADecodeError() {
        // A screen descriptor with a 2-colour global palette, then the trailer.
        let gif: [UInt8] = Array("GIF89a".utf8) + [1, 0, 1, 0, 0x80, 0, 0, 0, 0, 0, 255, 255, 255, 0x3B]
        DecodingTestHelpers.assertDecodeThrows(.decode, gif)
    }
}
#endif
