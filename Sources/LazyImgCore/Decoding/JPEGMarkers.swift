import Glibc

/// The marker segments of a JPEG file in the order libjpeg reads them.
///
/// Between segments libjpeg skips anything up to the next marker (with a warning),
/// so this does too: a frame header hidden behind junk bytes is still found, as the
/// decoder will find it. After a scan header (SOS) the entropy-coded data is
/// stepped over: inside it a 0xFF byte is always followed by a stuffed 0x00 or a
/// restart marker, so the first other marker ends it. The walk ends at EOI, at the
/// end of the bytes, or at a segment whose length is impossible or runs past the
/// end. Every offset is checked against the bytes present.
struct JPEGMarkers: Sequence, IteratorProtocol {
    struct Segment {
        let marker: UInt8
        /// The bytes after the two length bytes (empty for markers without a length).
        let payload: UnsafeBufferPointer<UInt8>
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    /// Where the walk goes on: past the last segment given (after a scan, at the
    /// 0xFF that ends its entropy-coded data, or at the end of the bytes).
    private(set) var offset = 2  // past SOI
    /// Whether the walk stopped at an EOI marker, rather than at the end of the bytes
    /// or a damaged segment.
    private(set) var reachedEnd = false

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    mutating func next() -> Segment? {
        guard !reachedEnd, let markerOffset = nextMarker(from: offset) else { return nil }
        let marker = bytes[markerOffset + 1]
        offset = markerOffset + 2
        // Markers without a length: RSTn and TEM outside a scan are ignored by libjpeg.
        if (0xD0...0xD7).contains(marker) || marker == 0x01 || marker == 0xD8 {
            return Segment(marker: marker, payload: UnsafeBufferPointer(rebasing: bytes[offset..<offset]))
        }
        if marker == 0xD9 {
            reachedEnd = true
            return Segment(marker: marker, payload: UnsafeBufferPointer(rebasing: bytes[offset..<offset]))
        }
        guard offset + 2 <= bytes.count else { return nil }
        let length = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
        let end = offset + length
        guard length >= 2, end <= bytes.count else { return nil }
        let payload = UnsafeBufferPointer(rebasing: bytes[(offset + 2)..<end])
        offset = end
        if marker == 0xDA {
            offset = endOfEntropyCodedData(from: end)
        }
        return Segment(marker: marker, payload: payload)
    }

    /// The offset of the next marker's 0xFF at or after `start` (skipping fill bytes
    /// and, as libjpeg does, any junk and stuffed zeros before it); nil at the end.
    private func nextMarker(from start: Int) -> Int? {
        var position = start
        while let found = nextFF(from: position) {
            guard found + 1 < bytes.count else { return nil }
            let following = bytes[found + 1]
            if following == 0xFF {  // a fill byte: the marker may start at the next one
                position = found + 1
            } else if following == 0x00 {  // junk that looks stuffed
                position = found + 2
            } else {
                return found
            }
        }
        return nil
    }

    /// Where the entropy-coded data that starts at `start` ends: at the 0xFF of the
    /// first marker other than a restart marker, or at the end of the bytes.
    private func endOfEntropyCodedData(from start: Int) -> Int {
        var position = start
        while let found = nextFF(from: position) {
            guard found + 1 < bytes.count else { return bytes.count }
            let following = bytes[found + 1]
            if following == 0x00 || (0xD0...0xD7).contains(following) {
                position = found + 2
            } else if following == 0xFF {
                position = found + 1
            } else {
                return found
            }
        }
        return bytes.count
    }

    private func nextFF(from start: Int) -> Int? {
        guard start < bytes.count, let base = bytes.baseAddress,
              let found = memchr(base + start, 0xFF, bytes.count - start)
        else { return nil }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }
}
