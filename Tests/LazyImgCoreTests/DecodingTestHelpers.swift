import LazyImgCore
import XCTest

/// Shared checks for the decoding tests.
enum DecodingTestHelpers {
    /// The largest difference of any channel of any pixel from `expected`.
    static func maxDeviation(of image: DecodedImage, from expected: [UInt8]) -> Int {
        var worst = 0
        for y in 0..<image.height {
            let row = image.row(y)
            for x in 0..<image.width * 4 {
                worst = max(worst, abs(Int(row[x]) - Int(expected[x % 4])))
            }
        }
        return worst
    }

    /// The mean of each channel over the whole image.
    static func meanColor(of image: DecodedImage) -> [Double] {
        var sums = [Double](repeating: 0, count: 4)
        for y in 0..<image.height {
            let row = image.row(y)
            for x in 0..<image.width * 4 {
                sums[x % 4] += Double(row[x])
            }
        }
        return sums.map { $0 / Double(image.width * image.height) }
    }

    /// Asserts that decoding throws exactly `expected`.
    static func assertDecodeThrows(_ expected: LoaderError, _ bytes: [UInt8], target: TargetSize = .original,
                                   limits: DecodeLimits = DecodeLimits(), _ message: String = "",
                                   file: StaticString = #filePath, line: UInt = #line) {
        do {
            let image = try ImageDecoder().decode(bytes, target: target, limits: limits)
            XCTFail("decoded \(image.width)x\(image.height), expected \(expected) \(message)", file: file, line: line)
        } catch {
            XCTAssertEqual(error, expected, message, file: file, line: line)
        }
    }

    /// `/work/shared/corpus`-style folder next to the package, or a skip when absent.
    static func corpus(_ subfolder: String, file: StaticString = #filePath) throws -> String {
        // Tests/LazyImgCoreTests/<file>.swift -> the package root -> ../shared/corpus
        var parts = "\(file)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        let path = (parts + ["..", "shared", "corpus", Substring(subfolder)]).joined(separator: "/")
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw XCTSkip("test corpus not found at \(path); it lives in ../shared/corpus next to the package")
        }
        return path
    }

    static func read(_ path: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw XCTSkip("cannot read \(path)")
        }
        return [UInt8](data)
    }

    /// Decodes every `.suffix` file of a corpus folder at full size and as a 24x24 fill
    /// thumbnail, checking the size and frame count its README gives; returns how
    /// many came out flagged animated.
    static func assertCorpusMatchesREADME(_ folder: String, suffix: String, atLeast minimum: Int,
                                          file: StaticString = #filePath, line: UInt = #line) throws -> Int {
        let root = try corpus(folder)
        let expectations = try pillowExpectations(in: folder).filter { $0.path.hasSuffix(suffix) }
        XCTAssertGreaterThanOrEqual(expectations.count, minimum, file: file, line: line)
        let limits = DecodeLimits()
        let thumbnail = DecodeOptions(target: TargetSize(width: 24, height: 24), fit: .fill)
        var animated = 0
        for expected in expectations {
            let bytes = try read(root + "/" + expected.path)
            do {
                let image = try ImageDecoder().decode(bytes, target: .original, limits: limits)
                XCTAssertEqual([image.width, image.height], [expected.width, expected.height], expected.path,
                               file: file, line: line)
                XCTAssertEqual(image.isAnimated, expected.frames > 1, expected.path, file: file, line: line)
                animated += image.isAnimated ? 1 : 0
                let thumb = try ImageDecoder().decode(bytes, options: thumbnail, limits: limits)
                XCTAssertLessThanOrEqual(max(thumb.width, thumb.height), 24, expected.path, file: file, line: line)
            } catch {
                XCTFail("\(expected.path): \(error)", file: file, line: line)
            }
        }
        return animated
    }

    /// What a corpus folder's README.md table says Pillow made of each file: the rows
    /// reading "Pillow 13: ok WxH MODE frames=N", keyed by the path in the folder.
    static func pillowExpectations(in folder: String) throws -> [(path: String, width: Int, height: Int, frames: Int)] {
        let root = try corpus(folder)
        guard let readme = FileManager.default.contents(atPath: root + "/README.md") else {
            throw XCTSkip("no README.md in \(root)")
        }
        var rows: [(String, Int, Int, Int)] = []
        for line in String(decoding: readme, as: UTF8.self).split(separator: "\n") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 3, cells[0].hasPrefix("`"), cells[2].hasPrefix("Pillow 13: ok ") else { continue }
            let words = cells[2].dropFirst("Pillow 13: ok ".count).split(separator: " ")
            let size = words.first?.split(separator: "x").compactMap { Int($0) } ?? []
            guard size.count == 2, let framesWord = words.last(where: { $0.hasPrefix("frames=") }),
                  let frames = Int(framesWord.dropFirst("frames=".count))
            else { continue }
            rows.append((String(cells[0].dropFirst().dropLast()), size[0], size[1], frames))
        }
        return rows
    }
}
