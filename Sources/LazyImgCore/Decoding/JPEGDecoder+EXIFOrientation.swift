extension JPEGDecoder {
    /// The Orientation tag of the file's EXIF block (APP1 "Exif\0\0", a TIFF header, IFD0
    /// tag 0x0112), or `.up` when there is none or it cannot be read.
    ///
    /// Every offset and length comes from the file, so each is checked against the bytes
    /// actually present; a malformed block only means "no orientation", never a failure.
    /// The walk stops at the first scan (SOS): EXIF must precede the image data.
    static func exifOrientation(in bytes: UnsafeBufferPointer<UInt8>) -> ImageOrientation {
        var markers = JPEGMarkers(bytes)
        while let segment = markers.next(), segment.marker != 0xDA {
            if segment.marker == 0xE1, let orientation = orientation(inAPP1: segment.payload) {
                return orientation
            }
        }
        return .up
    }

    /// The orientation in one APP1 segment's payload, nil when it is not EXIF (XMP also
    /// lives in APP1) or has no valid Orientation entry.
    private static func orientation(inAPP1 segment: UnsafeBufferPointer<UInt8>) -> ImageOrientation? {
        let exifHeader: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0]  // "Exif\0\0"
        guard segment.count >= exifHeader.count + 8, segment.prefix(exifHeader.count).elementsEqual(exifHeader) else {
            return nil
        }
        let tiff = UnsafeBufferPointer(rebasing: segment[exifHeader.count...])
        let bigEndian: Bool
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): bigEndian = false  // "II", Intel
        case (0x4D, 0x4D): bigEndian = true   // "MM", Motorola
        default: return nil
        }
        func read16(_ offset: Int) -> Int? {
            guard offset >= 0, offset + 2 <= tiff.count else { return nil }
            let a = Int(tiff[offset]), b = Int(tiff[offset + 1])
            return bigEndian ? a << 8 | b : b << 8 | a
        }
        func read32(_ offset: Int) -> Int? {
            guard let first = read16(offset), let second = read16(offset + 2) else { return nil }
            return bigEndian ? first << 16 | second : second << 16 | first
        }
        guard read16(2) == 42, let ifd0 = read32(4), let entryCount = read16(ifd0) else { return nil }
        // Entry counts are 16-bit, so this loop is short whatever the file claims; each
        // read past the segment's end just ends the search.
        for entry in 0..<entryCount {
            let entryOffset = ifd0 + 2 + entry * 12
            guard let tag = read16(entryOffset) else { return nil }
            guard tag == 0x0112 else { continue }
            // Type 3 is SHORT; the value sits in the first two bytes of the value field.
            guard read16(entryOffset + 2) == 3, let value = read16(entryOffset + 8) else { return nil }
            return ImageOrientation(rawValue: value)
        }
        return nil
    }
}
