/// How many scans of a progressive JPEG have arrived whole, read as its body grows
/// (`ReceivedPrefix`): the bytes up to the marker after a scan's data, with an EOI
/// appended, decode to the picture those scans give.
///
/// Each call goes on from where the last stopped, so a body is walked once however
/// it arrives; a marker split between two arrivals is read when its second byte
/// comes. Baseline, lossless and arithmetic files, and anything that is no JPEG,
/// end the watch at once: their prefixes are rows from the top, not a whole picture.
public struct JPEGScanProgress {
    private enum Phase {
        /// Between segments: the next bytes are a marker.
        case segments
        /// Inside a scan's entropy-coded data.
        case scanData
        /// Not a progressive JPEG, or its end came: nothing more to find.
        case done
    }

    private var phase = Phase.segments
    /// The next byte to read.
    private var offset = 0
    private var isProgressive = false
    /// Scans whose data ended before a marker other than EOI.
    public private(set) var completeScans = 0
    /// Nothing more will be found: not a progressive JPEG, or its end came.
    public var hasEnded: Bool { phase == .done }

    public init() {}

    /// Reads what came since the last call. Returns where the complete scans end (the
    /// marker after the last one) when a scan completed in these bytes; else nil.
    public mutating func advance(over bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        let before = completeScans
        var end = 0
        while phase != .done {
            switch phase {
            case .segments:
                guard readSegment(bytes) else { return completeScans > before ? end : nil }
            case .scanData:
                guard let marker = nextMarker(bytes) else { return completeScans > before ? end : nil }
                // EOI: the whole file is here, and its final decode follows.
                if bytes[marker + 1] == 0xD9 {
                    phase = .done
                } else {
                    completeScans += 1
                    end = marker
                    offset = marker
                    phase = .segments
                }
            case .done:
                break
            }
        }
        return completeScans > before ? end : nil
    }

    /// Reads one marker segment at `offset`; false when its bytes have not all come
    /// (or the watch ended).
    private mutating func readSegment(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard offset + 1 < bytes.count else { return false }
        guard bytes[offset] == 0xFF else {
            phase = .done
            return false
        }
        let marker = bytes[offset + 1]
        switch marker {
        case 0xFF:
            // A fill byte before the marker.
            offset += 1
            return true
        case 0xD8 where offset == 0, 0x01, 0xD0...0xD7:
            offset += 2
            return true
        case 0xD8, 0xD9:
            phase = .done
            return false
        default:
            break
        }
        guard offset + 3 < bytes.count else { return false }
        let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
        guard length >= 2 else {
            phase = .done
            return false
        }
        let next = offset + 2 + length
        guard next <= bytes.count else { return false }
        if JPEGFrameKind.isStartOfFrame(marker) {
            guard marker == 0xC2, !isProgressive else {
                phase = .done
                return false
            }
            isProgressive = true
        } else if marker == 0xDA {
            guard isProgressive else {
                phase = .done
                return false
            }
            phase = .scanData
        }
        offset = next
        return true
    }

    /// The offset of the marker that ends the scan data, or nil when the data runs to
    /// the bytes' end (`offset` then stays where a split marker may begin).
    private mutating func nextMarker(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        while offset < bytes.count {
            guard bytes[offset] == 0xFF else {
                offset += 1
                continue
            }
            guard offset + 1 < bytes.count else { return nil }
            switch bytes[offset + 1] {
            // A stuffed zero, or a restart marker inside the scan.
            case 0x00, 0xD0...0xD7: offset += 2
            // A fill byte: the marker starts at the next 0xFF.
            case 0xFF: offset += 1
            default: return offset
            }
        }
        return nil
    }
}
