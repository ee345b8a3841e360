/// A JPEG frame header (SOFn): the frame's size and its components' sampling.
struct JPEGFrameHeader {
    struct Component {
        let id: UInt8
        let horizontal: Int
        let vertical: Int
    }

    let marker: UInt8
    let width: Int
    let height: Int
    let components: [Component]

    /// SOF2 and SOF10: progressive, Huffman or arithmetic.
    var isProgressive: Bool { marker == 0xC2 || marker == 0xCA }

    /// Precision, height, width (16 bits each, so products of them fit), then per
    /// component its id, sampling factors (4 bits each) and table. Nil when the
    /// segment is short or a factor is outside the 1...4 libjpeg accepts.
    init?(_ segment: JPEGMarkers.Segment) {
        let payload = segment.payload
        guard payload.count >= 6 else { return nil }
        let count = Int(payload[5])
        guard count > 0, payload.count >= 6 + 3 * count else { return nil }
        var components: [Component] = []
        for index in 0..<count {
            let sampling = payload[7 + 3 * index]
            let horizontal = Int(sampling >> 4), vertical = Int(sampling & 0x0F)
            guard (1...4).contains(horizontal), (1...4).contains(vertical) else { return nil }
            components.append(Component(id: payload[6 + 3 * index], horizontal: horizontal, vertical: vertical))
        }
        marker = segment.marker
        height = Int(payload[1]) << 8 | Int(payload[2])
        width = Int(payload[3]) << 8 | Int(payload[4])
        self.components = components
    }
}
