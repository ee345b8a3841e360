/// What an HEVC sequence parameter set (SPS) says of the pictures it governs: the
/// coded size libde265 allocates them at (whatever the HEIF container says), the part
/// of it shown, the chroma layout and the sample depths.
///
/// Read as H.265 7.3.2.2 lays the SPS out, up to the coding block sizes. A NAL unit
/// that is no SPS gives nil, as does an SPS too broken to read that far (libde265
/// refuses those too).
struct HEVCSequenceParameters: Equatable {
    /// The largest coding tree block: a coded picture's sides are whole blocks.
    static let largestCodingBlock = 64
    /// The NAL unit type of a sequence parameter set.
    static let spsType = 33
    /// The fields read here lie in an SPS's first bytes: the header, at most 8 x 12
    /// bytes of profile and level, at most 34 Exp-Golomb numbers (of up to 8 bytes each).
    static let bytesRead = 400

    /// `pic_width_in_luma_samples` and `pic_height_in_luma_samples`.
    let codedWidth: Int
    let codedHeight: Int
    /// `chroma_format_idc`: 0 monochrome, 1 4:2:0, 2 4:2:2, 3 4:4:4.
    let chromaFormat: Int
    /// Luma samples the conformance window crops off the right and bottom edges, and
    /// off the left and top: libde265 hands over the rest.
    let croppedWidth: Int
    let croppedHeight: Int
    let bitDepthLuma: Int
    let bitDepthChroma: Int
    /// log2 of the sides of the coding tree blocks (16 to 64) and of the smallest coding
    /// blocks (8 up): libde265 keeps tables per block of each.
    let log2CodingTreeSize: Int
    let log2MinCodingSize: Int

    /// The NAL unit's type, from its two-byte header.
    static func nalType(_ header: UInt8) -> Int { Int(header >> 1) & 0x3F }

    /// The parameters of a complete SPS NAL unit (header included, emulation prevention
    /// in place).
    init?(_ nal: ArraySlice<UInt8>) {
        guard nal.count > 2, Self.nalType(nal[nal.startIndex]) == Self.spsType else { return nil }
        var bits = BitReader(unescaping: nal.dropFirst(2))
        guard bits.skip(4),  // sps_video_parameter_set_id
              let maxSubLayersMinus1 = bits.read(3), maxSubLayersMinus1 < 7,
              bits.skip(1),  // sps_temporal_id_nesting_flag
              bits.skipProfileTierLevel(maxSubLayersMinus1: maxSubLayersMinus1),
              bits.readExpGolomb() != nil,  // sps_seq_parameter_set_id
              let chromaFormat = bits.readExpGolomb(), chromaFormat <= 3,
              chromaFormat != 3 || bits.skip(1),  // separate_colour_plane_flag
              let width = bits.readExpGolomb(), let height = bits.readExpGolomb(),
              let windowed = bits.read(1)
        else { return nil }
        // The window's offsets count chroma samples (H.265 Table 6-1).
        let unitX = chromaFormat == 1 || chromaFormat == 2 ? 2 : 1, unitY = chromaFormat == 1 ? 2 : 1
        var cropped = (width: 0, height: 0)
        if windowed == 1 {
            guard let left = bits.readExpGolomb(), let right = bits.readExpGolomb(),
                  let top = bits.readExpGolomb(), let bottom = bits.readExpGolomb()
            else { return nil }
            cropped = ((left + right) * unitX, (top + bottom) * unitY)
        }
        guard let lumaMinus8 = bits.readExpGolomb(), lumaMinus8 <= 8,
              let chromaMinus8 = bits.readExpGolomb(), chromaMinus8 <= 8,
              bits.readExpGolomb() != nil,  // log2_max_pic_order_cnt_lsb_minus4
              let orderingForEachLayer = bits.read(1)
        else { return nil }
        // sps_max_dec_pic_buffering_minus1, sps_max_num_reorder_pics and
        // sps_max_latency_increase_plus1, of each sub-layer or of the highest only.
        for _ in 0..<(orderingForEachLayer == 1 ? maxSubLayersMinus1 + 1 : 1) * 3 {
            guard bits.readExpGolomb() != nil else { return nil }
        }
        guard let minCodingMinus3 = bits.readExpGolomb(), let treeDifference = bits.readExpGolomb(),
              minCodingMinus3 + treeDifference <= 3
        else { return nil }
        codedWidth = width
        codedHeight = height
        self.chromaFormat = chromaFormat
        croppedWidth = cropped.width
        croppedHeight = cropped.height
        bitDepthLuma = 8 + lumaMinus8
        bitDepthChroma = 8 + chromaMinus8
        log2MinCodingSize = 3 + minCodingMinus3
        log2CodingTreeSize = log2MinCodingSize + treeDifference
    }

    /// log2 of how many luma columns, and rows, share a chroma sample, for a
    /// `chroma_format_idc`.
    static func chromaShift(_ chromaFormat: Int) -> (x: Int, y: Int) {
        switch chromaFormat {
        case 1: (1, 1)
        case 2: (1, 0)
        default: (0, 0)
        }
    }

    /// The size libde265 hands over: the coded size less the conformance window; nil
    /// when the window leaves nothing.
    var shownSize: (width: Int, height: Int)? {
        guard croppedWidth < codedWidth, croppedHeight < codedHeight else { return nil }
        return (codedWidth - croppedWidth, codedHeight - croppedHeight)
    }

    /// Parameters at least as costly as both: each field the larger.
    func covering(_ other: HEVCSequenceParameters) -> HEVCSequenceParameters {
        HEVCSequenceParameters(codedWidth: max(codedWidth, other.codedWidth), codedHeight: max(codedHeight, other.codedHeight),
                               chromaFormat: max(chromaFormat, other.chromaFormat),
                               croppedWidth: 0, croppedHeight: 0,
                               bitDepthLuma: max(bitDepthLuma, other.bitDepthLuma),
                               bitDepthChroma: max(bitDepthChroma, other.bitDepthChroma),
                               log2CodingTreeSize: min(log2CodingTreeSize, other.log2CodingTreeSize),
                               log2MinCodingSize: min(log2MinCodingSize, other.log2MinCodingSize))
    }

    private init(codedWidth: Int, codedHeight: Int, chromaFormat: Int, croppedWidth: Int, croppedHeight: Int,
                 bitDepthLuma: Int, bitDepthChroma: Int, log2CodingTreeSize: Int, log2MinCodingSize: Int) {
        self.codedWidth = codedWidth
        self.codedHeight = codedHeight
        self.chromaFormat = chromaFormat
        self.croppedWidth = croppedWidth
        self.croppedHeight = croppedHeight
        self.bitDepthLuma = bitDepthLuma
        self.bitDepthChroma = bitDepthChroma
        self.log2CodingTreeSize = log2CodingTreeSize
        self.log2MinCodingSize = log2MinCodingSize
    }

    /// Reads bits most significant first from an RBSP: the NAL payload with each
    /// emulation prevention byte (the 3 in 00 00 03) taken out.
    private struct BitReader {
        private var bytes: [UInt8] = []
        private var bit = 0

        init(unescaping payload: ArraySlice<UInt8>) {
            var zeros = 0
            for byte in payload.prefix(HEVCSequenceParameters.bytesRead) {
                if zeros >= 2 && byte == 3 {
                    zeros = 0
                    continue
                }
                zeros = byte == 0 ? zeros + 1 : 0
                bytes.append(byte)
            }
        }

        mutating func read(_ count: Int) -> Int? {
            guard count <= 32, bit + count <= bytes.count * 8 else { return nil }
            var value = 0
            for _ in 0..<count {
                value = value << 1 | Int(bytes[bit >> 3] >> (7 - UInt8(bit & 7)) & 1)
                bit += 1
            }
            return value
        }

        mutating func skip(_ count: Int) -> Bool {
            guard bit + count <= bytes.count * 8 else { return false }
            bit += count
            return true
        }

        /// ue(v); nil past 31 leading zeros, which no field here may have.
        mutating func readExpGolomb() -> Int? {
            var zeros = 0
            while true {
                guard let next = read(1) else { return nil }
                if next == 1 { break }
                zeros += 1
                guard zeros < 32 else { return nil }
            }
            guard let suffix = read(zeros) else { return nil }
            return (1 << zeros) - 1 + suffix
        }

        /// profile_tier_level(1, maxSubLayersMinus1) (7.3.3): 96 bits of general profile
        /// and level, two flags per sub-layer padded to eight, then each sub-layer's
        /// profile (88 bits) and level (8 bits) where its flags say they are present.
        mutating func skipProfileTierLevel(maxSubLayersMinus1: Int) -> Bool {
            guard skip(96) else { return false }
            var present: [(profile: Bool, level: Bool)] = []
            for _ in 0..<maxSubLayersMinus1 {
                guard let profile = read(1), let level = read(1) else { return false }
                present.append((profile == 1, level == 1))
            }
            if maxSubLayersMinus1 > 0 && !skip(2 * (8 - maxSubLayersMinus1)) { return false }
            for layer in present {
                if layer.profile && !skip(88) { return false }
                if layer.level && !skip(8) { return false }
            }
            return true
        }
    }
}
