#if !LAZYIMG_SUBSET || LAZYIMG_ASAN_SUBSET || LAZYIMG_TSAN_SUBSET_3 // the AddressSanitizer subset, and ThreadSanitizer group 3
@testable import LazyImgCore
import TestSupport
import XCTest

/// One decoder (as one decode thread holds) must give every file the outcome a fresh
/// decoder gives it, whatever it decoded before: a refused file must not break the
/// files after it (issue 7, item 11).
extension DecodingCorpusTests {
    private enum Outcome: Equatable {
        case image(width: Int, height: Int)
        case failed(LoaderError)
    }

    private func outcome(of bytes: [UInt8], with decoder: ImageDecoder) -> Outcome {
        do {
            let image = try decoder.decode(bytes, target: TargetSize(width: 64, height: 64), limits: DecodeLimits())
            return .image(width: image.width, height: image.height)
        } catch {
            return .failed(error)
        }
    }

    func testOneDecoderGivesEveryCorpusFileItsOwnOutcomeAfterRefusals() throws {
        var paths: [String] = []
        for folder in ["jpeg", "pngsuite", "png-corrupt", "gif", "webp", "bad"] {
            paths += try files(in: folder, recursive: true)
        }
        XCTAssertGreaterThan(paths.count, 600)
        // photos/ is left out: 24 large valid PNGs, slow in debug builds, nothing refused.
        let reference = try DecodingTestHelpers.read(try DecodingTestHelpers.corpus("jpeg") + "/testorig.jpg")
        var expected: [String: Outcome] = [:]
        var contents: [String: [UInt8]] = [:]
        for path in paths {
            let bytes = try DecodingTestHelpers.read(path)
            contents[path] = bytes
            expected[path] = outcome(of: bytes, with: ImageDecoder())
        }
        // Refused files first, so every later file meets a decoder that has refused.
        let refusedFirst = paths.filter { expected[$0] != nil && !isImage(expected[$0]!) }
            + paths.filter { expected[$0] != nil && isImage(expected[$0]!) }
        let shared = ImageDecoder()
        var refusals = 0
        for path in refusedFirst {
            let got = outcome(of: contents[path]!, with: shared)
            XCTAssertEqual(got, expected[path], path)
            guard !isImage(got) else { continue }
            refusals += 1
            // A plain baseline JPEG right after each refusal, on the same decoder.
            XCTAssertEqual(outcome(of: reference, with: shared), .image(width: 64, height: 42), "after \(path)")
        }
        print("one decoder: \(paths.count) files, \(refusals) refused first, every later file as when alone")
    }

    func testUnusualJPEGsAreUnsupportedWithAMessageNotCorrupt() throws {
        let root = try DecodingTestHelpers.corpus("jpeg")
        let cases = ["jpeg-decoder/lossless/jpeg_lossless_sel1.jpg": "unsupported image format: lossless JPEG",
                     "testorig12.jpg": "unsupported image format: 12-bit JPEG",
                     "monkey12.jpg": "unsupported image format: 12-bit JPEG"]
        for (name, message) in cases {
            let bytes = try DecodingTestHelpers.read(root + "/" + name)
            DecodingTestHelpers.assertDecodeThrows(.unsupported, bytes, name)
            XCTAssertEqual(FailureMessage.describe(.unsupported, bytes: bytes), message, name)
        }
        // The decodable kinds pass the sniff: baseline, progressive, arithmetic.
        for name in ["testorig.jpg", "testimgp.jpg", "testimgari.jpg"] {
            XCTAssertEqual(JPEGFrameKind(scanning: try DecodingTestHelpers.read(root + "/" + name)), .decodable, name)
        }
    }

    private func isImage(_ outcome: Outcome) -> Bool {
        if case .image = outcome { return true }
        return false
    }
}
#endif
