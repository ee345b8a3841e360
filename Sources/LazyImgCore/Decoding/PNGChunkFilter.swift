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
///
/// For a file's start (`PNGInterlacedPrefix`), `idatPieces` hands the image data over
/// as IDAT chunks of at most that many bytes, each with its own CRC, once the
/// original chunk's CRC matched (a chunk the start cuts off cannot be checked).
/// libspng reads up to 8 KiB of a chunk at a time and fails on a short read, so
/// without this the last few KiB of a start would never decode.
struct PNGChunkFilter {
    private let bytes: UnsafeBufferPointer<UInt8>
    private let idatPieces: Int?
    /// The next byte of `bytes` to hand over: how much of the file was read.
    private(set) var position = 0
    /// Bytes left of what is being handed over (the signature, then one chunk).
    private var remaining = 8
    /// Image data left of an IDAT chunk handed over in pieces, and of its piece.
    private var idatLeft = 0, pieceLeft = 0
    /// A made-up chunk header or CRC still to hand over, first byte highest.
    private var madeUp: UInt64 = 0, madeUpCount = 0
    /// The CRC of the piece being handed over, so far.
    private var pieceCRC: UInt32 = 0
    /// Ancillary chunks left out because their CRC did not match.
    private(set) var damagedChunks = 0
    /// A read went past the bytes' end (rather than stopping at damage).
    private(set) var ranOut = false

    init(_ bytes: UnsafeBufferPointer<UInt8>, idatPieces: Int? = nil) {
        self.bytes = bytes
        self.idatPieces = idatPieces
    }

    /// Copies the next `count` bytes of the filtered file; false at its end.
    mutating func read(into destination: UnsafeMutableRawPointer, count: Int) -> Bool {
        var written = 0
        while written < count {
            if madeUpCount > 0 {
                madeUpCount -= 1
                destination.storeBytes(of: UInt8(truncatingIfNeeded: madeUp >> (8 * madeUpCount)),
                                       toByteOffset: written, as: UInt8.self)
                written += 1
                continue
            }
            if pieceLeft > 0 || idatLeft > 0 {
                guard copyPiece(into: destination + written, count: count - written, written: &written) else { return false }
                continue
            }
            if remaining == 0 {
                startNextChunk()
                if madeUpCount > 0 || pieceLeft > 0 || idatLeft > 0 { continue }
            }
            let run = min(count - written, remaining, bytes.count - position)
            guard run > 0, let base = bytes.baseAddress else {
                ranOut = position >= bytes.count
                return false
            }
            (destination + written).copyMemory(from: base + position, byteCount: run)
            position += run
            remaining -= run
            written += run
        }
        return true
    }

    /// Hands over image data of a chunk read in pieces: a piece's header, its
    /// bytes, its CRC; past the chunk's data, its own CRC is stepped over.
    private mutating func copyPiece(into destination: UnsafeMutableRawPointer, count: Int,
                                    written: inout Int) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        if pieceLeft == 0 {
            let piece = min(idatLeft, idatPieces ?? 0, bytes.count - position)
            guard piece > 0 else {
                ranOut = true
                return false
            }
            pieceLeft = piece
            idatLeft -= piece
            pieceCRC = Self.idatTypeCRC
            // Length, then "IDAT".
            madeUp = UInt64(piece) << 32 | 0x4944_4154
            madeUpCount = 8
            return true
        }
        let run = min(count, pieceLeft)
        destination.copyMemory(from: base + position, byteCount: run)
        pieceCRC = CRC32.update(pieceCRC, UnsafeRawBufferPointer(start: base + position, count: run))
        position += run
        pieceLeft -= run
        written += run
        if pieceLeft == 0 {
            madeUp = UInt64(pieceCRC)
            madeUpCount = 4
            if idatLeft == 0 { position = min(bytes.count, position + 4) }
        }
        return true
    }

    /// A chunk's CRC starts with its type.
    private static let idatTypeCRC = CRC32.checksum(Array("IDAT".utf8))

    /// Steps over every ancillary chunk from `position` on that the pixels do not
    /// need (or that is damaged), then sets `remaining` to the length of the next chunk
    /// handed over.
    private mutating func startNextChunk() {
        while position + 8 <= bytes.count {
            let length = Int(bytes[position]) << 24 | Int(bytes[position + 1]) << 16
                | Int(bytes[position + 2]) << 8 | Int(bytes[position + 3])
            // Length, type, data, CRC: at most 2^32 + 11, so no overflow.
            let total = 12 + length
            if idatPieces != nil, isIDAT(at: position + 4), length <= Int(Int32.max) {
                // Checked when whole; damage stops the read here.
                let whole = total <= bytes.count - position
                guard !whole || crcMatches(chunkAt: position, length: length) else { return }
                guard length > 0 else {
                    position = whole ? position + total : bytes.count
                    continue
                }
                position += 8
                idatLeft = length
                return
            }
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

    private func isIDAT(at offset: Int) -> Bool {
        bytes[offset] == 0x49 && bytes[offset + 1] == 0x44 && bytes[offset + 2] == 0x41 && bytes[offset + 3] == 0x54
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
