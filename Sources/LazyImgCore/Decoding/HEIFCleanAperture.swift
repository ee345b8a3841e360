/// A `clap` property (ISO/IEC 14496-12 12.1.4): the part of the image to show, as a
/// width and height and an offset of its centre from the image's, each a fraction.
///
/// The rectangle is rounded as libheif 1.15 rounds it (left truncated, the other edges
/// rounded half up, then clamped to the image), but from exact fractions: libheif
/// halves a fraction's terms past 2^16, which only moves edges of images that large
/// with such denominators.
struct HEIFCleanAperture {
    private let width: (numerator: Int, denominator: Int)
    private let height: (numerator: Int, denominator: Int)
    private let horizontalOffset: (numerator: Int, denominator: Int)
    private let verticalOffset: (numerator: Int, denominator: Int)

    /// Eight 32-bit fields: width, height, horizontal offset, vertical offset, each a
    /// numerator then a denominator; offsets' numerators are signed. Throws `.decode`
    /// for a denominator of 0 or any term past 2^31 - 1, which libheif refuses too.
    init(_ payload: Range<Int>, in bytes: UnsafeBufferPointer<UInt8>) throws(LoaderError) {
        var reader = BigEndianReader(bytes, payload)
        var fields: [Int] = []
        for _ in 0..<8 {
            guard let field = reader.u32() else { throw .decode }
            fields.append(field)
        }
        let signed = { (field: Int) in field >= 1 << 31 ? field - (1 << 32) : field }
        guard [fields[0], fields[2]].allSatisfy({ $0 < 1 << 31 }),
              [fields[1], fields[3], fields[5], fields[7]].allSatisfy({ $0 > 0 && $0 < 1 << 31 })
        else { throw .decode }
        width = (fields[0], fields[1])
        height = (fields[2], fields[3])
        horizontalOffset = (signed(fields[4]), fields[5])
        verticalOffset = (signed(fields[6]), fields[7])
    }

    /// The rectangle kept of an image of `imageWidth` x `imageHeight`; `.decode` when
    /// it is empty (libheif refuses those too).
    func rectangle(imageWidth: Int, imageHeight: Int) throws(LoaderError) -> (x: Int, y: Int, width: Int, height: Int) {
        // left = offset + (image - 1) / 2 - (aperture - 1) / 2, truncated; the right
        // edge (inclusive) left + aperture - 1, rounded. The same downwards, rounded.
        guard let left = Self.edge(offset: horizontalOffset, image: imageWidth, aperture: width, rounded: false),
              let top = Self.edge(offset: verticalOffset, image: imageHeight, aperture: height, rounded: true)
        else { throw .decode }
        // Both at most about 2^33 from zero, the apertures below 2^31: no overflow.
        let right = left - 1 + Self.rounded(width.numerator, width.denominator)
        let bottom = top - 1 + Self.rounded(height.numerator, height.denominator)
        let x = max(0, left), y = max(0, top)
        let lastX = min(right, imageWidth - 1), lastY = min(bottom, imageHeight - 1)
        guard x <= lastX, y <= lastY else { throw .decode }
        return (x, y, lastX - x + 1, lastY - y + 1)
    }

    /// offset + (image - aperture) / 2 over the denominator 2 x d(offset) x d(aperture),
    /// truncated or rounded; nil where a term overflows.
    private static func edge(offset: (numerator: Int, denominator: Int), image: Int,
                             aperture: (numerator: Int, denominator: Int), rounded: Bool) -> Int? {
        let denominator = 2 * offset.denominator * aperture.denominator
        guard case (let offsetPart, false) = (2 * offset.numerator).multipliedReportingOverflow(by: aperture.denominator),
              case (let imagePart, false) = image.multipliedReportingOverflow(by: aperture.denominator),
              case (let difference, false) = (imagePart - aperture.numerator).multipliedReportingOverflow(by: offset.denominator),
              case (let numerator, false) = offsetPart.addingReportingOverflow(difference)
        else { return nil }
        return rounded ? Self.rounded(numerator, denominator) : numerator / denominator
    }

    /// libheif's Fraction::round: half added, then truncated toward zero.
    private static func rounded(_ numerator: Int, _ denominator: Int) -> Int {
        (numerator + denominator / 2) / denominator
    }
}
