import CPngReference
import Glibc

/// What libpng makes of a PNG with the transforms that mirror libspng's RGBA8 output
/// (see Tests/CPngReference/include/png_reference.h): the second opinion PNG decodes
/// are compared against.
public struct PNGReference: Sendable {
    public let width: Int
    public let height: Int
    /// Straight RGBA8, rows back to back.
    public let pixels: [UInt8]

    /// nil when libpng refuses the file.
    public init?(decoding bytes: [UInt8]) {
        var width: UInt32 = 0, height: UInt32 = 0
        let decoded = bytes.withUnsafeBufferPointer { buffer in
            lazyimg_png_reference_decode(buffer.baseAddress, buffer.count, &width, &height)
        }
        guard let decoded else { return nil }
        defer { free(decoded) }
        self.width = Int(width)
        self.height = Int(height)
        pixels = Array(UnsafeBufferPointer(start: decoded, count: self.width * self.height * 4))
    }
}
