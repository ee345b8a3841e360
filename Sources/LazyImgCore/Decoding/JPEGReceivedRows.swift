/// How much of a baseline JPEG cut short its bytes actually carry: the rows of MCUs
/// (minimum coded units) whose every Huffman code is there.
///
/// libjpeg decodes a cut-off sequential scan to its end anyway: the MCU the data
/// runs out in gets zero bits, every later one all-zero coefficients, mid-grey.
/// Browsers, reading with a suspending source, output only whole rows of MCUs and
/// leave the rest empty. Telling the rows apart needs the entropy-coded data walked
/// as the decoder walks it: every block's DC and AC codes, with the file's own
/// Huffman tables, restart markers and interleaving. Only codes are read, no
/// coefficient is kept, and every step moves through the finite bytes, so a hostile
/// file costs one pass over them.
struct JPEGReceivedRows {
    /// Rows of MCUs whose codes are all present.
    let completeMCURows: Int
    /// Image rows per row of MCUs, at full size: 8 x the largest vertical sampling.
    let mcuHeight: Int

    /// Makes the rows below the complete MCU rows transparent in libjpeg's output,
    /// `pixels`, decoded at `scale` (TurboJPEG's num/denom) of the full size.
    func clearMissingRows(_ pixels: UnsafeMutableRawPointer, width: Int, height: Int, pitch: Int,
                          scale: (numerator: Int, denominator: Int)) {
        let firstMissing = completeMCURows.multipliedSaturating(by: mcuHeight * scale.numerator) / scale.denominator
        for row in min(firstMissing, height)..<height {
            (pixels + row * pitch).initializeMemory(as: UInt8.self, repeating: 0, count: width * 4)
        }
    }

    /// Nil when the file is not one interleaved-or-single-component Huffman scan
    /// this can walk (progressive, arithmetic, a scan per component, a table
    /// missing, a bad code): then what libjpeg produced is left as it is.
    init?(_ bytes: UnsafeBufferPointer<UInt8>) {
        var tables = [HuffmanTable?](repeating: nil, count: 8)  // DC 0-3, then AC 0-3
        var restartInterval = 0
        var frame: JPEGFrameHeader?
        var markers = JPEGMarkers(bytes)
        while let segment = markers.next() {
            let payload = segment.payload
            switch segment.marker {
            case 0xC4:
                guard Self.readTables(payload, into: &tables) else { return nil }
            case 0xDD:
                guard payload.count >= 2 else { return nil }
                restartInterval = Int(payload[0]) << 8 | Int(payload[1])
            case 0xC0, 0xC1:
                guard frame == nil, let header = JPEGFrameHeader(segment) else { return nil }
                frame = header
            case 0xDA:
                guard let frame, frame.width > 0, frame.height > 0 else { return nil }
                guard let rows = Self.walkScan(after: payload, in: bytes, frame: frame, tables: tables,
                                               restartInterval: restartInterval)
                else { return nil }
                completeMCURows = rows.complete
                mcuHeight = rows.mcuHeight
                return
            default:
                // Any other frame type (progressive, arithmetic, lossless) is not walked.
                if JPEGFrameKind.isStartOfFrame(segment.marker) { return nil }
            }
        }
        return nil
    }

    /// Walks the first scan's data; nil unless it names every component.
    private static func walkScan(after header: UnsafeBufferPointer<UInt8>, in bytes: UnsafeBufferPointer<UInt8>,
                                 frame: JPEGFrameHeader, tables: [HuffmanTable?],
                                 restartInterval: Int) -> (complete: Int, mcuHeight: Int)? {
        guard let count = header.first.map(Int.init), count == frame.components.count,
              header.count >= 1 + 2 * count, let base = bytes.baseAddress, let headerBase = header.baseAddress
        else { return nil }
        // Each block in MCU order: its DC and AC tables.
        var blocks: [(dc: HuffmanTable, ac: HuffmanTable)] = []
        for index in 0..<count {
            guard let component = frame.components.first(where: { $0.id == header[1 + 2 * index] }) else { return nil }
            let selectors = header[2 + 2 * index]
            guard let dc = tables[Int(selectors >> 4) & 3], let ac = tables[4 + Int(selectors & 3)] else { return nil }
            let perMCU = count == 1 ? 1 : component.horizontal * component.vertical
            blocks += Array(repeating: (dc, ac), count: perMCU)
        }
        let maxHorizontal = frame.components.map(\.horizontal).max() ?? 1
        let maxVertical = frame.components.map(\.vertical).max() ?? 1
        // A single-component scan's MCU is one block of that component.
        let (unitWidth, unitHeight) = count == 1
            ? (8 * maxHorizontal / frame.components[0].horizontal, 8 * maxVertical / frame.components[0].vertical)
            : (8 * maxHorizontal, 8 * maxVertical)
        let perRow = (frame.width + unitWidth - 1) / unitWidth
        let rows = (frame.height + unitHeight - 1) / unitHeight
        // The entropy-coded data starts right after the scan header.
        var reader = EntropyReader(bytes, from: base.distance(to: headerBase) + header.count)
        for mcu in 0..<(perRow * rows) {
            if restartInterval > 0 && mcu > 0 && mcu % restartInterval == 0 {
                guard reader.restart() else { return (mcu / perRow, unitHeight) }
            }
            for block in blocks {
                switch reader.skipBlock(dc: block.dc, ac: block.ac) {
                case .done: continue
                case .outOfData: return (mcu / perRow, unitHeight)
                case .badCode: return nil
                }
            }
        }
        return (rows, unitHeight)
    }

    /// DHT: any number of tables, each class/id, 16 counts, then the symbols.
    private static func readTables(_ payload: UnsafeBufferPointer<UInt8>, into tables: inout [HuffmanTable?]) -> Bool {
        var offset = 0
        while offset < payload.count {
            guard offset + 17 <= payload.count else { return false }
            let classAndID = payload[offset]
            let counts = (0..<16).map { Int(payload[offset + 1 + $0]) }
            let total = counts.reduce(0, +)
            guard classAndID >> 4 <= 1, classAndID & 0x0F <= 3, offset + 17 + total <= payload.count else { return false }
            let symbols = Array(payload[(offset + 17)..<(offset + 17 + total)])
            tables[Int(classAndID >> 4) * 4 + Int(classAndID & 3)] = HuffmanTable(counts: counts, symbols: symbols)
            offset += 17 + total
        }
        return true
    }
}

/// A canonical Huffman table (JPEG Annex C): per code length, the first code and
/// where its symbols start.
struct HuffmanTable {
    private var firstCode = [Int](repeating: 0, count: 17)
    private var firstIndex = [Int](repeating: 0, count: 17)
    private let counts: [Int]
    private let symbols: [UInt8]

    init(counts: [Int], symbols: [UInt8]) {
        self.counts = [0] + counts
        self.symbols = symbols
        var code = 0, index = 0
        for length in 1...16 {
            firstCode[length] = code
            firstIndex[length] = index
            code = (code + self.counts[length]) << 1
            index += self.counts[length]
        }
    }

    /// The symbol of `code` read as `length` bits, if one has that code.
    func symbol(code: Int, length: Int) -> UInt8? {
        let offset = code - firstCode[length]
        guard offset >= 0, offset < counts[length] else { return nil }
        return symbols[firstIndex[length] + offset]
    }
}

/// Bits of entropy-coded data, most significant first, with stuffed zeros removed;
/// the data ends at the first marker or the end of the bytes.
private struct EntropyReader {
    enum Outcome { case done, outOfData, badCode }

    private let bytes: UnsafeBufferPointer<UInt8>
    private var offset: Int
    private var current = 0
    private var bitsLeft = 0
    private var ended = false

    init(_ bytes: UnsafeBufferPointer<UInt8>, from offset: Int) {
        self.bytes = bytes
        self.offset = offset
    }

    private mutating func bit() -> Int? {
        if bitsLeft == 0 {
            guard !ended, offset < bytes.count else { return nil }
            let byte = bytes[offset]
            if byte == 0xFF {
                guard offset + 1 < bytes.count, bytes[offset + 1] == 0x00 else {
                    ended = true  // a marker (or the end): no more data in this interval
                    return nil
                }
                offset += 2
            } else {
                offset += 1
            }
            current = Int(byte)
            bitsLeft = 8
        }
        bitsLeft -= 1
        return (current >> bitsLeft) & 1
    }

    private mutating func skip(_ count: Int) -> Bool {
        for _ in 0..<count {
            guard bit() != nil else { return false }
        }
        return true
    }

    private mutating func decode(_ table: HuffmanTable) -> (symbol: UInt8?, ranOut: Bool) {
        var code = 0
        for length in 1...16 {
            guard let next = bit() else { return (nil, true) }
            code = code << 1 | next
            if let symbol = table.symbol(code: code, length: length) { return (symbol, false) }
        }
        return (nil, false)
    }

    /// One block's DC difference and AC run/level codes, read and dropped.
    mutating func skipBlock(dc: HuffmanTable, ac: HuffmanTable) -> Outcome {
        let first = decode(dc)
        guard let category = first.symbol else { return first.ranOut ? .outOfData : .badCode }
        guard skip(Int(category & 0x0F)) else { return .outOfData }
        var coefficient = 1
        while coefficient < 64 {
            let next = decode(ac)
            guard let runAndSize = next.symbol else { return next.ranOut ? .outOfData : .badCode }
            let run = Int(runAndSize >> 4), size = Int(runAndSize & 0x0F)
            if size == 0 {
                guard run == 15 else { break }  // end of block
                coefficient += 16
            } else {
                guard skip(size) else { return .outOfData }
                coefficient += run + 1
            }
        }
        return .done
    }

    /// At a restart interval's end: drops the partial byte and steps over the RSTn
    /// marker; false when the next marker is not one (the data ends there).
    mutating func restart() -> Bool {
        bitsLeft = 0
        while offset + 1 < bytes.count && bytes[offset] == 0xFF && bytes[offset + 1] == 0xFF { offset += 1 }
        guard offset + 1 < bytes.count, bytes[offset] == 0xFF, (0xD0...0xD7).contains(bytes[offset + 1]) else {
            return false
        }
        offset += 2
        ended = false
        return true
    }
}
