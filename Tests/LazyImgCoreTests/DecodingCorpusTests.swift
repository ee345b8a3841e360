#if !LAZYIMG_SUBSET || LAZYIMG_ASAN_SUBSET || LAZYIMG_TSAN_SUBSET_3 // the AddressSanitizer subset, and ThreadSanitizer group 3
import LazyImgCore
import TestSupport
import XCTest

/// Real-world files from ../shared/corpus (see its README.md files); each test skips
/// when the corpus is absent.
final class DecodingCorpusTests: XCTestCase {
    private let limits = DecodeLimits()

    func files(in folder: String, extensions: Set<String>? = nil, recursive: Bool = false) throws -> [String] {
        let root = try DecodingTestHelpers.corpus(folder)
        let manager = FileManager.default
        let names = recursive ? (manager.subpaths(atPath: root) ?? []) : ((try? manager.contentsOfDirectory(atPath: root)) ?? [])
        return names.sorted().compactMap { name in
            let path = root + "/" + name
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else { return nil }
            // Upstream license and readme texts and checksum lists sit beside the images.
            if name.hasSuffix(".md") || name.hasSuffix("SHA256SUMS") || name.hasSuffix("LICENSE") { return nil }
            if let extensions, !extensions.contains(String(name.split(separator: ".").last ?? "")) { return nil }
            return path
        }
    }

    func testEveryValidPngSuiteImageDecodes() throws {
        // pngsuite/README.md: every .png here is valid (the corrupt x*.png files live
        // in png-corrupt/), and all decode with Pillow.
        let paths = try files(in: "pngsuite", extensions: ["png"])
        XCTAssertGreaterThanOrEqual(paths.count, 160)
        for path in paths {
            let bytes = try DecodingTestHelpers.read(path)
            do {
                let image = try ImageDecoder().decode(bytes, target: .original, limits: limits)
                XCTAssertEqual([image.width, image.height], [image.sourceWidth, image.sourceHeight], path)
                let thumb = try ImageDecoder().decode(bytes, target: TargetSize(width: 8, height: 8), limits: limits)
                XCTAssertLessThanOrEqual(max(thumb.width, thumb.height), 8, path)
            } catch {
                XCTFail("\(path): \(error)")
            }
        }
    }

    func testEveryValidPngSuiteImageMatchesLibpngByteForByte() throws {
        // The reference is libpng 1.6 (PNGReference), not libspng checking itself: both
        // expand palette, low bit depths and tRNS, keep the high byte of 16-bit samples
        // and ignore gAMA, cHRM, sRGB, iCCP, sBIT and bKGD, so every pixel must agree.
        let paths = try files(in: "pngsuite", extensions: ["png"])
        XCTAssertGreaterThanOrEqual(paths.count, 160)
        var compared = 0
        for path in paths {
            let bytes = try DecodingTestHelpers.read(path)
            guard let reference = PNGReference(decoding: bytes) else {
                XCTFail("\(path): libpng refused it")
                continue
            }
            let image: DecodedImage
            do {
                image = try ImageDecoder().decode(bytes, options: DecodeOptions(), limits: limits)
            } catch {
                XCTFail("\(path): \(error)")
                continue
            }
            guard [image.width, image.height] == [reference.width, reference.height] else {
                XCTFail("\(path): \(image.width)x\(image.height), libpng \(reference.width)x\(reference.height)")
                continue
            }
            let rowBytes = image.width * 4
            let firstDifference = (0..<image.height).lazy.compactMap { y -> String? in
                let row = image.row(y)
                guard let x = (0..<rowBytes).first(where: { row[$0] != reference.pixels[y * rowBytes + $0] }) else {
                    return nil
                }
                return "pixel (\(x / 4), \(y)) channel \(x % 4): \(row[x]), libpng \(reference.pixels[y * rowBytes + x])"
            }.first
            XCTAssertNil(firstDifference, path)
            compared += 1
        }
        print("pngsuite: \(compared) images compared with libpng")
        XCTAssertEqual(compared, paths.count)
    }

    func testEveryCorruptPngIsRefused() throws {
        let paths = try files(in: "png-corrupt", extensions: ["png"])
        XCTAssertEqual(paths.count, 14)
        for path in paths {
            let bytes = try DecodingTestHelpers.read(path)
            XCTAssertThrowsError(try ImageDecoder().decode(bytes, target: .original, limits: limits), path)
        }
    }

    func testKnownBadFilesNeverCrash() throws {
        // bad/README.md: some of these still decode (with or without warnings); the
        // requirement is an image or a thrown LoaderError, never a crash or a hang.
        let paths = try files(in: "bad", recursive: true)
        XCTAssertGreaterThan(paths.count, 200)
        var decoded = 0, failed = 0
        for path in paths {
            let bytes = try DecodingTestHelpers.read(path)
            for options in [DecodeOptions(), DecodeOptions(target: TargetSize(width: 64, height: 64)),
                            DecodeOptions(target: TargetSize(width: 40, height: 64), fit: .fill, format: .bgra8Premultiplied)] {
                do {
                    let image = try ImageDecoder().decode(bytes, options: options, limits: limits)
                    XCTAssertGreaterThan(image.width * image.height, 0, path)
                    decoded += 1
                } catch {
                    failed += 1
                }
            }
        }
        print("bad/: \(decoded) decodes succeeded, \(failed) failed")
    }

    func testJPEGFolderDecodesExceptDocumentedRefusals() throws {
        let root = try DecodingTestHelpers.corpus("jpeg")
        // jpeg/README.md lists what libjpeg-turbo 2.1.5 cannot decode: 12-bit and
        // lossless (SOF3) JPEG, refused as unsupported. Three more decode with libjpeg
        // warnings (junk bytes before a marker, a missing Huffman table, a short
        // data segment): shown as damaged, as browsers show them.
        var expectedUnsupported: Set<String> = ["testorig12.jpg", "monkey12.jpg"]
        for selection in 1...7 {
            expectedUnsupported.insert("jpeg-decoder/lossless/jpeg_lossless_sel\(selection).jpg")
        }
        let expectedDamaged: Set<String> = ["jpeg-decoder/extraneous-data.jpg", "jpeg-decoder/mjpeg.jpg",
                                            "jpeg-decoder/partial_progressive.jpg"]
        let paths = try files(in: "jpeg", extensions: ["jpg", "jpeg"], recursive: true)
        XCTAssertGreaterThan(paths.count, 80)
        var unsupported: Set<String> = [], corrupt: Set<String> = [], damaged: Set<String> = []
        for path in paths {
            let bytes = try DecodingTestHelpers.read(path)
            do {
                let image = try ImageDecoder().decode(bytes, target: TargetSize(width: 100, height: 100), limits: limits)
                XCTAssertLessThanOrEqual(max(image.width, image.height), 100, path)
                if image.isDamaged { damaged.insert(String(path.dropFirst(root.count + 1))) }
            } catch .unsupported {
                unsupported.insert(String(path.dropFirst(root.count + 1)))
            } catch {
                XCTAssertEqual(error, .decode, path)
                corrupt.insert(String(path.dropFirst(root.count + 1)))
            }
        }
        XCTAssertEqual(unsupported, expectedUnsupported)
        XCTAssertEqual(corrupt, [])
        XCTAssertEqual(damaged, expectedDamaged)
    }

    func testEveryGIFAndWebPFileDecodesOrThrows() throws {
        // Everything in gif/ and webp/ (reference PNGs and text files included): an
        // image or a LoaderError, never a crash, in both fit modes and pixel formats.
        var paths = try files(in: "gif", recursive: true)
        paths += try files(in: "webp", recursive: true)
        XCTAssertGreaterThan(paths.count, 150)
        for path in paths {
            let bytes = try DecodingTestHelpers.read(path)
            for options in [DecodeOptions(), DecodeOptions(target: TargetSize(width: 33, height: 20), fit: .fill,
                                                           format: .bgra8Premultiplied)] {
                if let image = try? ImageDecoder().decode(bytes, options: options, limits: limits) {
                    XCTAssertGreaterThan(image.width * image.height, 0, path)
                }
            }
        }
    }

    func testCMYKJPEGMatchesMozillaReference() throws {
        // mozilla/*.png are the reference decodes Firefox's tests compare against.
        let root = try DecodingTestHelpers.corpus("jpeg/mozilla")
        for name in ["jpg-cmyk-1", "jpg-cmyk-2"] {
            let decoder = ImageDecoder()
            let image = try decoder.decode(try DecodingTestHelpers.read("\(root)/\(name).jpg"), target: .original, limits: limits)
            let reference = try decoder.decode(try DecodingTestHelpers.read("\(root)/\(name).png"), target: .original, limits: limits)
            XCTAssertEqual([image.width, image.height], [reference.width, reference.height], name)
            var worst = 0
            for y in 0..<min(image.height, reference.height) {
                for (a, b) in zip(image.row(y), reference.row(y)) {
                    worst = max(worst, abs(Int(a) - Int(b)))
                }
            }
            print("\(name): max difference \(worst)")
            XCTAssertLessThanOrEqual(worst, 3, name)
        }
    }

    func testPhotosShrinkToThumbnails() throws {
        // photos/: Kodak suite, 768x512 (some portrait 512x768) PNGs.
        let paths = try files(in: "photos", extensions: ["png"])
        XCTAssertEqual(paths.count, 24)
        for path in paths.prefix(4) {
            let image = try ImageDecoder().decode(try DecodingTestHelpers.read(path), target: TargetSize(width: 120, height: 120),
                                                  limits: limits)
            let landscape = image.sourceWidth > image.sourceHeight
            XCTAssertEqual([image.width, image.height], landscape ? [120, 80] : [80, 120], path)
        }
    }
}
#endif
