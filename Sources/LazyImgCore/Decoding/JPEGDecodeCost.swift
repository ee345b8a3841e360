/// What decoding a JPEG will hold and how much work its scans make, read from its
/// markers before TurboJPEG sees it.
///
/// A baseline JPEG whose one scan carries every component decodes a row of blocks at
/// a time. Any other (progressive, or sequential with a scan per component) makes
/// libjpeg keep every DCT coefficient of the image until the last scan: 128 bytes
/// per 8x8 block, 6 bytes per pixel at 4:4:4, whatever the box. And each scan walks
/// every block of the components it carries, however few bytes it has: a 130 KB
/// file of 500 scans over a large frame cost seconds. Both are counted here from the
/// frame header (SOF) and the scan headers (SOS), so the decoder can refuse a file
/// beyond its limits before anything is allocated.
struct JPEGDecodeCost {
    typealias Component = JPEGFrameHeader.Component

    let width: Int
    let height: Int
    let components: [Component]
    let isProgressive: Bool
    /// Scans (SOS markers) before EOI.
    private(set) var scans = 0
    /// Blocks the scans walk, summed over the scans.
    private(set) var blockVisits = 0
    /// Whether libjpeg keeps the whole image's coefficients: progressive, or the first
    /// scan lacks a component.
    private(set) var keepsEveryCoefficient: Bool
    /// Whether the walk reached an EOI marker (else the file is cut short, or damaged
    /// past its last readable segment).
    private(set) var endsWithEOI = false

    /// Scans libjpeg-turbo decodes at most (TJFLAG_LIMITSCANS).
    static let maxScans = 500
    /// Block visits allowed per block of the image: a progressive file's scans may
    /// walk each block this many times (libjpeg's own progressive script walks each
    /// about 4.5 times), so its CPU stays within a small multiple of one pass.
    static let maxVisitsPerBlock = 16
    /// Visits any file may make, however small its frame: 2^18 visits cost a few
    /// milliseconds.
    static let minVisitAllowance = 1 << 18

    /// Nil when the bytes have no readable frame header before their first scan (left
    /// to TurboJPEG to refuse).
    init?(scanning bytes: UnsafeBufferPointer<UInt8>) {
        var markers = JPEGMarkers(bytes)
        var frame: JPEGFrameHeader?
        var scans = 0, visits = 0, firstScanComponents: Int?
        while let segment = markers.next() {
            if JPEGFrameKind.isStartOfFrame(segment.marker) {
                // libjpeg refuses a second frame header; the first one is the frame.
                if frame == nil {
                    guard let parsed = JPEGFrameHeader(segment) else { return nil }
                    frame = parsed
                }
            } else if segment.marker == 0xDA {
                guard let frame else { return nil }
                let scanComponents = Self.scanComponents(segment.payload, of: frame.components)
                if firstScanComponents == nil { firstScanComponents = scanComponents.count }
                scans += 1
                visits = visits.addingSaturating(Self.blocks(walkedBy: scanComponents, width: frame.width,
                                                             height: frame.height, of: frame.components))
            }
        }
        guard let frame else { return nil }
        width = frame.width
        height = frame.height
        components = frame.components
        isProgressive = frame.isProgressive
        self.scans = scans
        blockVisits = visits
        keepsEveryCoefficient = frame.isProgressive || (firstScanComponents ?? 0) < frame.components.count
        endsWithEOI = markers.reachedEnd
    }

    /// Bytes of coefficients libjpeg allocates for the whole image (0 when it decodes
    /// a row of blocks at a time): for each component, its blocks padded to whole
    /// sampling factors (jdcoefct.c), 64 two-byte coefficients each.
    var coefficientBytes: Int {
        guard keepsEveryCoefficient else { return 0 }
        return components.reduce(0) { total, component in
            let columns = roundUp(blockColumns(component), toMultipleOf: component.horizontal)
            let rows = roundUp(blockRows(component), toMultipleOf: component.vertical)
            return total.addingSaturating(columns.multipliedSaturating(by: rows).multipliedSaturating(by: 128))
        }
    }

    /// Every block of every component: what one pass over the image walks.
    var blocks: Int {
        components.reduce(0) { $0.addingSaturating(blockColumns($1).multipliedSaturating(by: blockRows($1))) }
    }

    /// The block visits the scans may make.
    var allowedBlockVisits: Int {
        max(Self.minVisitAllowance, blocks.multipliedSaturating(by: Self.maxVisitsPerBlock))
    }

    /// Why the file is beyond the working-memory limit or the scan bounds, or nil.
    /// `otherBytes` is what the decode holds besides the coefficients.
    func refusal(_ limits: DecodeLimits, otherBytes: Int) -> String? {
        if scans > Self.maxScans {
            return "JPEG with \(scans) scans (at most \(Self.maxScans) are decoded)"
        }
        if blockVisits > allowedBlockVisits {
            return "progressive JPEG whose \(scans) scans walk \(blockVisits) blocks, "
                + "over the \(allowedBlockVisits) its \(width)x\(height) frame allows"
        }
        let working = coefficientBytes.addingSaturating(otherBytes)
        guard coefficientBytes > 0 else { return limits.workingMemoryRefusal("JPEG of \(width)x\(height)", needs: working) }
        let kind = isProgressive ? "progressive JPEG" : "multi-scan JPEG"
        return limits.workingMemoryRefusal("\(kind) of \(width)x\(height)", needs: working,
                                           detail: "\(ByteCount(coefficientBytes)) of it coefficients")
    }

    // MARK: - Geometry (jdinput.c: a component's blocks cover its share of the frame)

    private var maxHorizontal: Int { components.map(\.horizontal).max() ?? 1 }
    private var maxVertical: Int { components.map(\.vertical).max() ?? 1 }

    private func blockColumns(_ component: Component) -> Int {
        divideRoundingUp(width * component.horizontal, 8 * maxHorizontal)
    }

    private func blockRows(_ component: Component) -> Int {
        divideRoundingUp(height * component.vertical, 8 * maxVertical)
    }

    /// Blocks one scan walks: a single component's own blocks, or for an interleaved
    /// scan every MCU of the frame times the blocks each carries of those components.
    private static func blocks(walkedBy scan: [Component], width: Int, height: Int, of frame: [Component]) -> Int {
        let cost = JPEGDecodeCost(width: width, height: height, components: frame)
        if scan.count == 1, let only = scan.first {
            return cost.blockColumns(only) * cost.blockRows(only)
        }
        let mcus = divideRoundingUp(width, 8 * cost.maxHorizontal) * divideRoundingUp(height, 8 * cost.maxVertical)
        return mcus.multipliedSaturating(by: scan.reduce(0) { $0 + $1.horizontal * $1.vertical })
    }

    private init(width: Int, height: Int, components: [Component]) {
        self.width = width
        self.height = height
        self.components = components
        isProgressive = false
        keepsEveryCoefficient = false
    }

    /// The frame's components a scan header names (each counted once; unknown ids,
    /// which libjpeg refuses, are left out).
    private static func scanComponents(_ payload: UnsafeBufferPointer<UInt8>, of frame: [Component]) -> [Component] {
        guard let count = payload.first.map(Int.init), payload.count >= 1 + 2 * count else { return [] }
        var named: [Component] = []
        for index in 0..<count {
            let id = payload[1 + 2 * index]
            if let component = frame.first(where: { $0.id == id }), !named.contains(where: { $0.id == id }) {
                named.append(component)
            }
        }
        return named
    }
}

private func divideRoundingUp(_ value: Int, _ divisor: Int) -> Int {
    (value + divisor - 1) / divisor
}

private func roundUp(_ value: Int, toMultipleOf factor: Int) -> Int {
    divideRoundingUp(value, factor) * factor
}
