#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_3 // ThreadSanitizer group 3 (see the Makefile's tsan)
import Foundation
@testable import LazyImgCore
import XCTest

/// The BlurHash and ThumbHash renderers against their reference decoders' output,
/// stored in Tests/Fixtures/placeholders by scripts/placeholder_fixtures.py (make
/// placeholder-fixtures): digests where the bytes must be the reference's, whole
/// images where a port that rounds differently is the only reference at that size.
final class PlaceholderDecodingTests: XCTestCase {
    /// One fixture line: kind, hash, size, and then digests or the RGBA bytes in hex.
    struct Case {
        let hash: String
        let width: Int
        let height: Int
        let expected: [Substring]
    }

    static func lines(_ name: String, file: StaticString = #filePath) throws -> [[Substring]] {
        // Tests/LazyImgCoreTests/<file>.swift -> Tests/Fixtures/placeholders/<name>
        var parts = "\(file)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(2)
        let path = (parts + ["Fixtures", "placeholders", Substring(name)]).joined(separator: "/")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { $0.split(separator: " ") }
    }

    static func cases(_ name: String) throws -> [Case] {
        try lines(name).filter { !$0[0].hasSuffix("-stress") }.map { fields in
            Case(hash: String(fields[1]), width: Int(fields[2])!, height: Int(fields[3])!, expected: Array(fields[4...]))
        }
    }

    /// The `<kind>-stress <count> <digest>` line.
    static func stress(_ name: String) throws -> (count: Int, digest: String) {
        let fields = try XCTUnwrap(try lines(name).first { $0[0].hasSuffix("-stress") })
        return (Int(fields[1])!, String(fields[2]))
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// The image's pixel bytes without padding.
    static func bytes(_ image: DecodedImage) -> [UInt8] {
        (0..<image.height).flatMap { Array(image.row($0)) }
    }

    /// Renders `c` in both pixel formats and compares each with its digest.
    func assertDigests(_ c: Case, _ render: (PixelFormat) -> DecodedImage?,
                       file: StaticString = #filePath, line: UInt = #line) throws {
        for (format, digest) in zip([PixelFormat.rgba8, .bgra8Premultiplied], c.expected) {
            let image = try XCTUnwrap(render(format), file: file, line: line)
            XCTAssertEqual(Self.hex(SHA256.digest(Self.bytes(image))), String(digest),
                           "\(c.hash) at \(c.width)x\(c.height) \(format)", file: file, line: line)
        }
    }

    func testBlurHashIsTheReferenceBitForBit() throws {
        let cases = try Self.cases("blurhash.txt")
        XCTAssertGreaterThan(cases.count, 100)
        for c in cases {
            let hash = try BlurHash(Array(c.hash.utf8))
            try assertDigests(c) { hash.render(width: c.width, height: c.height, format: $0) }
        }
    }

    func testThumbHashIsTheReferenceBitForBitAtItsSize() throws {
        let cases = try Self.cases("thumbhash.txt")
        XCTAssertGreaterThan(cases.count, 30)
        for c in cases {
            let hash = try ThumbHash(base64: Array(c.hash.utf8))
            XCTAssertTrue(hash.referenceSize == (c.width, c.height), "\(c.hash): \(hash.referenceSize)")
            try assertDigests(c) { hash.render(width: c.width, height: c.height, format: $0) }
        }
    }

    /// Thousands of hashes of random bytes in one digest: enough channels that moving
    /// the reference's float operations by a unit in the last place (another order of
    /// sums) turns some byte. The same SplitMix sequence as the fixtures' script.
    func testThumbHashesOfRandomBytesAreTheReferenceTogether() throws {
        let (count, digest) = try Self.stress("thumbhash.txt")
        var generator = SplitMix(seed: 20)
        var all: [UInt8] = []
        for _ in 0..<count {
            var bytes = (0..<32).map { _ in UInt8(truncatingIfNeeded: generator.next() & 255) }
            if bytes[3] & 7 == 0 { bytes[3] |= 1 }
            let hash = try ThumbHash(bytes: bytes)
            let size = hash.referenceSize
            all += Self.bytes(try XCTUnwrap(hash.render(width: size.width, height: size.height, format: .rgba8)))
        }
        XCTAssertEqual(Self.hex(SHA256.digest(all)), digest)
    }

    func testBlurHashesOfRandomDigitsAreTheReferenceTogether() throws {
        let (count, digest) = try Self.stress("blurhash.txt")
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~".utf8)
        var generator = SplitMix(seed: 20)
        var all: [UInt8] = []
        for _ in 0..<count {
            let size = Int(generator.next() % 83)
            let digits = 3 + 2 * (size % 9 + 1) * (size / 9 + 1)
            let text = [alphabet[size]] + (0..<digits).map { _ in alphabet[Int(generator.next() % 83)] }
            all += Self.bytes(try XCTUnwrap(BlurHash(text).render(width: 12, height: 12, format: .rgba8)))
        }
        XCTAssertEqual(Self.hex(SHA256.digest(all)), digest)
    }

    /// At sizes the reference does not render, the port that takes a size: it rounds
    /// where the reference truncates, in doubles, so each channel may be 1 above,
    /// never below or further.
    func testThumbHashAtOtherSizesIsWithinOneOfAPortInDoubles() throws {
        let cases = try Self.cases("thumbhash-sizes.txt")
        XCTAssertGreaterThan(cases.count, 10)
        for c in cases {
            let image = try XCTUnwrap(ThumbHash(base64: Array(c.hash.utf8)).render(width: c.width, height: c.height, format: .rgba8))
            let expected = stride(from: 0, to: c.expected[0].count, by: 2).map { offset -> Int in
                let start = c.expected[0].index(c.expected[0].startIndex, offsetBy: offset)
                return Int(c.expected[0][start...c.expected[0].index(after: start)], radix: 16)!
            }
            let got = Self.bytes(image)
            XCTAssertEqual(got.count, expected.count, c.hash)
            for (ours, theirs) in zip(got, expected) {
                let difference = Int(theirs) - Int(ours)
                XCTAssertTrue((0...1).contains(difference), "\(c.hash) at \(c.width)x\(c.height): \(ours) vs \(theirs)")
            }
        }
    }

    /// The table stands in for `pow` only where it gives the curve's own byte: checked
    /// at every double within 2000 of each threshold, and at a million others.
    func testLinearToSRGBTableIsTheCurveEverywhere() {
        let encode = LinearToSRGB.shared
        var generator = SplitMix(seed: 20)
        for k in 0..<255 {
            var v = encode.thresholds[k]
            for _ in 0..<2000 { v = v.nextDown }
            for _ in 0..<4000 {
                if encode.byte(v) != LinearToSRGB.byte(exactly: v) {
                    return XCTFail("\(v): table \(encode.byte(v)), curve \(LinearToSRGB.byte(exactly: v))")
                }
                v = v.nextUp
            }
        }
        for _ in 0..<1_000_000 {
            let v = Double(generator.next() >> 11) / Double(1 << 53) * 1.2 - 0.1
            if encode.byte(v) != LinearToSRGB.byte(exactly: v) { return XCTFail("\(v)") }
        }
    }

    func testBadHashesAreRefusedWithTheirReason() {
        func blurHash(_ text: String) -> PlaceholderError? {
            do { _ = try BlurHash(Array(text.utf8)); return nil } catch { return error }
        }
        func thumbHash(_ text: String) -> PlaceholderError? {
            do { _ = try ThumbHash(base64: Array(text.utf8)); return nil } catch { return error }
        }
        XCTAssertNil(blurHash("LEHV6nWB2yk8pyo0adR*.7kCMdnj"))
        XCTAssertNil(blurHash("000000"))
        XCTAssertEqual(blurHash(""), .blurHashLength)
        XCTAssertEqual(blurHash("00000"), .blurHashLength)
        XCTAssertEqual(blurHash("LEHV6nWB2yk8pyo0adR*.7kCMdn"), .blurHashLength)
        XCTAssertEqual(blurHash("LEHV6nWB2yk8pyo0adR*.7kCMdnjX"), .blurHashLength)
        XCTAssertEqual(blurHash("LEHV6nWB2yk8pyo0adR*.7kCMd\"j"), .blurHashCharacter)
        XCTAssertEqual(blurHash("LEHV6nWB2yk8pyo0adR*.7kCM\u{E9}"), .blurHashCharacter)
        XCTAssertEqual(blurHash(String(repeating: "0", count: BlurHash.maximumLength + 1)), .tooLong)
        XCTAssertEqual(try BlurHash(Array(("|" + String(repeating: "0", count: 165)).utf8)).componentsX, 9)
        // The first digit's 81 and 82 count 10 rows; the reference decoders take them.
        XCTAssertEqual(try BlurHash(Array(("~" + String(repeating: "0", count: 43)).utf8)).componentsY, 10)

        let photo = "2hgGDYB4dWiPd5dleGiIl1lvo/JE"
        XCTAssertNil(thumbHash(photo))
        XCTAssertNil(thumbHash("E6qCA4I4W6CHWGmFcF0I5wdXh3iAeFc="), "padding")
        XCTAssertNil(thumbHash("E6qCA4I4W6CHWGmFcF0I5wdXh3iAeFc"), "padding left out")
        XCTAssertNil(thumbHash(photo.replacingOccurrences(of: "/", with: "_")), "URL-safe alphabet")
        XCTAssertEqual(thumbHash(photo + "="), .thumbHashBase64, "padding that does not fill a group")
        XCTAssertEqual(thumbHash(photo + "A"), .thumbHashBase64, "one symbol is not a byte")
        XCTAssertEqual(thumbHash(" " + photo), .thumbHashBase64)
        XCTAssertEqual(thumbHash(String(photo.prefix(8))), .thumbHashTooShort)
        XCTAssertEqual(thumbHash("AAAA"), .thumbHashTooShort)
        XCTAssertEqual(thumbHash(String(repeating: "A", count: ThumbHash.maximumBase64Length + 4)), .tooLong)
        // A header with 0 luminance components on the short side (byte 3's low bits).
        var bytes = Base64Text.decode(Array(photo.utf8))!
        bytes[3] &= ~7
        XCTAssertThrowsError(try ThumbHash(bytes: bytes)) { XCTAssertEqual($0 as? PlaceholderError, .thumbHashNoComponents) }
        XCTAssertThrowsError(try ThumbHash(bytes: [UInt8](repeating: 0, count: ThumbHash.maximumByteCount + 1))) {
            XCTAssertEqual($0 as? PlaceholderError, .tooLong)
        }
    }

    /// Every crafted hash renders without a trap: any bytes that parse, at any size.
    func testRandomHashesThatParseRender() throws {
        var generator = SplitMix(seed: 7)
        var rendered = 0
        for _ in 0..<2000 {
            let count = Int(generator.next() % 40)
            let bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            let width = Int(generator.next() % 9) + 1, height = Int(generator.next() % 9) + 1
            if let hash = try? ThumbHash(bytes: bytes) {
                XCTAssertNotNil(hash.render(width: width, height: height, format: .bgra8Premultiplied))
                rendered += 1
            }
            let text = bytes.map { UInt8(ascii: "0") &+ $0 % 75 }
            if let hash = try? BlurHash(text) {
                XCTAssertNotNil(hash.render(width: width, height: height, format: .rgba8))
                rendered += 1
            }
        }
        XCTAssertGreaterThan(rendered, 100)
    }
}
#endif
