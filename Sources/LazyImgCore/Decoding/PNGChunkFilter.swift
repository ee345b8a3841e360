import CSpng

/// The PNG libspng reads: the file's bytes without the ancillary chunks the decoder has
/// no use for, handed over through libspng's read callback.
///
/// The pixels need IHDR, PLTE, tRNS, IDAT and IEND. libspng would parse and keep every
/// other chunk (text, ICC profiles, EXIF, ...), inflate the compressed ones, and refuse
/// the file when one is over its chunk limits or malformed, although browsers skip
/// such chunks and show the image. Here they never reach it: no memory, no
/// decompression, no failure. Their CRCs are still checked: a mismatch makes the
/// image damaged, shown as browsers show it (libpng's default for an ancillary chunk
/// is to warn and drop it). tRNS with a bad CRC is dropped too. Critical chunks, and
/// anything cut short, pass through for libspng to judge. Nothing is copied or
/// allocated.
struct PNGChunkFilter {
    private let bytes: UnsafeBufferPointer<UInt8>
    /// The next byte of `bytes` to hand over.
    private var position = 0
    /// Bytes left of what is being handed over (the signature, then one chunk).
    private var remaining = 8
    /// Ancillary chunks left out because their CRC did not match.
    private(set) var damagedChunks = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Copies the next `count` bytes of the filtered file; false at its end.
    mutating func read(into destination: UnsafeMutableRawPointer, count: Int) -> Bool {
        var written = 0
        while written < count {
            if remaining == 0 { startNextChunk() }
            let run = min(count - written, remaining, bytes.count - position)
            guard run > 0, let base = bytes.baseAddress else { return false }
            (destination + written).copyMemory(from: base + position, byteCount: run)
            position += run
            remaining -= run
            written += run
        }
        return true
    }

    /// Steps over every ancillary chunk from `position` on that the pixels do not
    /// need (or that is damaged), then sets `remaining` to the length of the next chunk
    /// handed over.
    private mutating func startNextChunk() {
        while position + 8 <= bytes.count {
            let length = Int(bytes[position]) << 24 | Int(bytes[position + 1]) << 16
                | Int(bytes[position + 2]) << 8 | Int(bytes[position + 3])
            // Length, type, data, CRC: at most 2^32 + 11, so no overflow.
            let total = 12 + length
            // Ancillary chunks have a lower-case first letter.
            guard bytes[position + 4] & 0x20 != 0, length <= Int(Int32.max), total <= bytes.count - position else {
                remaining = total
                return
            }
            let intact = crcMatches(chunkAt: position, length: length)
            if intact && isTRNS(at: position + 4) {
                remaining = total
                return
            }
            if !intact { damagedChunks += 1 }
            position += total
        }
        // A cut-off chunk header: pass the tail through for libspng to report.
        remaining = bytes.count - position
    }

    /// tRNS: the one ancillary chunk the pixels need.
    private func isTRNS(at offset: Int) -> Bool {
        bytes[offset] == 0x74 && bytes[offset + 1] == 0x52 && bytes[offset + 2] == 0x4E && bytes[offset + 3] == 0x53
    }

    /// The CRC covers the type and the data.
    private func crcMatches(chunkAt offset: Int, length: Int) -> Bool {
        let crcOffset = offset + 8 + length
        let stored = UInt32(bytes[crcOffset]) << 24 | UInt32(bytes[crcOffset + 1]) << 16
            | UInt32(bytes[crcOffset + 2]) << 8 | UInt32(bytes[crcOffset + 3])
        return CRC32.update(0, UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[(offset + 4)..<crcOffset]))) == stored
    }

    /// libspng's read callback (spng_rw_fn); `user` points to the filter.
    static func read(_ user: UnsafeMutableRawPointer?, _ destination: UnsafeMutableRawPointer?, _ count: Int) -> Int32 {
        guard let user, let destination,
              user.assumingMemoryBound(to: PNGChunkFilter.self).pointee.read(into: destination, count: count)
        else { return SPNG_IO_EOF.rawValue }
        return 0
    }
}
