/// `jpeg` with an APP1 EXIF segment carrying Orientation `orientation` inserted right
/// after SOI, written in big-endian ("MM") or little-endian ("II") TIFF byte order.
public func insertingEXIFOrientation(_ orientation: Int, into jpeg: [UInt8], bigEndian: Bool = true) -> [UInt8] {
    let payload: [UInt8] = Array("Exif".utf8) + [0, 0] + exifTIFF(orientation: orientation, bigEndian: bigEndian)
    let length = payload.count + 2
    let segment: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    return Array(jpeg.prefix(2)) + segment + Array(jpeg.dropFirst(2))
}

/// An Exif block as HEIF and AVIF store it, from the TIFF header on: IFD0 with
/// Orientation `orientation`.
public func exifTIFF(orientation: Int, bigEndian: Bool = true) -> [UInt8] {
    func bytes16(_ value: Int) -> [UInt8] {
        bigEndian ? [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] : [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)]
    }
    func bytes32(_ value: Int) -> [UInt8] {
        bigEndian ? bytes16(value >> 16) + bytes16(value & 0xFFFF) : bytes16(value & 0xFFFF) + bytes16(value >> 16)
    }
    // TIFF header, then IFD0 at offset 8 with two entries (a harmless XResolution-free
    // ImageWidth before the orientation, so the reader has to walk), no next IFD.
    var tiff: [UInt8] = (bigEndian ? Array("MM".utf8) : Array("II".utf8)) + bytes16(42) + bytes32(8)
    tiff += bytes16(2)
    tiff += bytes16(0x0100) + bytes16(3) + bytes32(1) + bytes16(16) + [0, 0]  // ImageWidth, SHORT
    tiff += bytes16(0x0112) + bytes16(3) + bytes32(1) + bytes16(orientation) + [0, 0]
    tiff += bytes32(0)
    return tiff
}
