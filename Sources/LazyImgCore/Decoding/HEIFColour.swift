/// How an HEVC picture's samples map to RGB: the H.273 code points of an `nclx`
/// colour property, or of the SPS's video usability information, as libheif 1.15
/// reads them.
struct HEIFColour: Equatable {
    var primaries: Int
    var matrix: Int
    var fullRange: Bool

    /// An `nclx` payload of a `colr` property: the colour type, then the primaries,
    /// transfer and matrix in 16 bits each, then the full-range flag in the top bit;
    /// nil for other colour types (ICC profiles).
    init?(colourProperty payload: Range<Int>, in bytes: UnsafeBufferPointer<UInt8>) {
        var reader = BigEndianReader(bytes, payload)
        guard reader.u32() == Int(HEIFItems.fourCC("nclx")), let primaries = reader.u16(), reader.skip(2),
              let matrix = reader.u16(), let flags = reader.u8()
        else { return nil }
        self.init(primaries: primaries, matrix: matrix, fullRange: flags & 0x80 != 0)
    }

    init(primaries: Int, matrix: Int, fullRange: Bool) {
        self.primaries = primaries
        self.matrix = matrix
        self.fullRange = fullRange
    }

    /// The factors of Cb and Cr in R, G and B (ITU-T H.273 8.3), from the matrix's
    /// Kr and Kb; BT.601's for matrices without a table here (unspecified, and the
    /// chromaticity-derived 12 and 13, which libheif derives from the primaries).
    /// Computed in `Float` in libheif's order, so that the RGB is libheif's to the bit.
    var coefficients: (rCr: Float, gCb: Float, gCr: Float, bCb: Float) {
        let factors: (kr: Float, kb: Float)?
        switch matrix {
        case 1: factors = (0.2126, 0.0722)
        case 4: factors = (0.30, 0.11)
        case 5, 6: factors = (0.299, 0.114)
        case 7: factors = (0.212, 0.087)
        case 9, 10: factors = (0.2627, 0.0593)
        default: factors = nil
        }
        guard let (kr, kb) = factors else { return (1.402, -0.344136, -0.714136, 1.772) }
        return (2 * (-kr + 1), 2 * kb * (-kb + 1) / (kb + kr - 1), 2 * kr * (-kr + 1) / (kb + kr - 1), 2 * (-kb + 1))
    }
}
