/// The scans that end a JPEG's start after its DC scans: for each component one AC
/// scan (coefficients 1-63, full precision) whose every block is an end-of-block,
/// then EOI.
///
/// Without them libjpeg-turbo sees no AC data at all and smooths the DC values
/// themselves ("DC interpolation", jdcoefct.c), which blurs a 1/8 decode (28-33 dB
/// against the whole file's). With every AC coefficient known to be zero, it
/// decodes the DC values as they are: the picture the whole file gives at 1/8, short
/// of the DC bits a later refinement scan would add. A file with restart intervals
/// gets only the EOI: its scans would need restart markers.
enum JPEGZeroACScans {
    /// The AC table the scans use: the 15 end-of-block-run symbols (EOB0...EOB14),
    /// each a 4-bit code, code n for EOBn.
    private static let tableID: UInt8 = 0
    private static let runSymbols = 15

    /// `start` (bytes up to the DC scans' end) with the scans and an EOI after it.
    static func ending(_ start: ArraySlice<UInt8>) -> [UInt8] {
        var bytes = Array(start)
        if let frame = frameWithoutRestarts(bytes) {
            bytes += huffmanTable()
            for component in frame.components {
                bytes += scan(component, of: frame)
            }
        }
        return bytes + [0xFF, 0xD9]
    }

    private static func frameWithoutRestarts(_ bytes: [UInt8]) -> JPEGFrameHeader? {
        bytes.withUnsafeBufferPointer { buffer in
            var markers = JPEGMarkers(buffer)
            var frame: JPEGFrameHeader?
            while let segment = markers.next() {
                if segment.marker == 0xDD, segment.payload.count >= 2, segment.payload[0] | segment.payload[1] != 0 {
                    return nil
                }
                if segment.marker == 0xC2 { frame = JPEGFrameHeader(segment) }
            }
            return frame
        }
    }

    /// DHT: class 1 (AC), `tableID`; 15 codes of length 4, symbols 0x00, 0x10 ... 0xE0.
    private static func huffmanTable() -> [UInt8] {
        var counts = [UInt8](repeating: 0, count: 16)
        counts[3] = UInt8(runSymbols)
        let symbols = (0..<runSymbols).map { UInt8($0 << 4) }
        let length = 2 + 1 + 16 + symbols.count
        return [0xFF, 0xC4, UInt8(length >> 8), UInt8(length & 0xFF), 0x10 | tableID] + counts + symbols
    }

    /// SOS for one component, coefficients 1-63 at full precision, and its data: end
    /// of block runs over all of the component's blocks.
    private static func scan(_ component: JPEGFrameHeader.Component, of frame: JPEGFrameHeader) -> [UInt8] {
        let maxH = frame.components.map(\.horizontal).max() ?? 1, maxV = frame.components.map(\.vertical).max() ?? 1
        // A non-interleaved scan covers the component's own blocks, not whole MCUs.
        let width = (frame.width * component.horizontal + maxH - 1) / maxH
        let height = (frame.height * component.vertical + maxV - 1) / maxV
        var blocks = ((width + 7) / 8) * ((height + 7) / 8)
        var header: [UInt8] = [0xFF, 0xDA, 0x00, 0x08, 0x01, component.id, tableID, 0x01, 0x3F, 0x00]
        var writer = BitWriter()
        while blocks > 0 {
            // EOBr covers 2^r + (r extra bits) blocks: at most 32767 at once.
            let run = min(blocks, (1 << 15) - 1)
            let r = Int.bitWidth - 1 - run.leadingZeroBitCount
            writer.write(r, bits: 4)
            writer.write(run - (1 << r), bits: r)
            blocks -= run
        }
        header += writer.finished()
        return header
    }

    /// Entropy-coded bytes: most significant bit first, padded with 1 bits, every 0xFF
    /// followed by a stuffed 0x00.
    private struct BitWriter {
        private var bytes: [UInt8] = []
        private var pending = 0, count = 0

        mutating func write(_ value: Int, bits: Int) {
            for shift in stride(from: bits - 1, through: 0, by: -1) {
                pending = pending << 1 | (value >> shift) & 1
                count += 1
                if count == 8 { flush() }
            }
        }

        mutating func finished() -> [UInt8] {
            while count != 0 { write(1, bits: 1) }
            return bytes
        }

        private mutating func flush() {
            bytes.append(UInt8(pending))
            if pending == 0xFF { bytes.append(0x00) }
            pending = 0
            count = 0
        }
    }
}
