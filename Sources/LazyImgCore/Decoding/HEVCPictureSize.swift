/// The picture size an HEVC sequence parameter set (SPS) declares: what libde265
/// allocates its pictures from, whatever the HEIF container says.
///
/// Read as H.265 7.3.2.2 lays the SPS out, up to `pic_height_in_luma_samples`. A NAL
/// unit that is no SPS gives nil, as does an SPS too broken to read that far (libde265
/// refuses those too).
enum HEVCPictureSize {
    /// The largest coding tree block: a coded picture's sides are whole blocks.
    static let largestCodingBlock = 64
    /// The NAL unit type of a sequence parameter set.
    static let spsType = 33
    /// The fields read here lie in an SPS's first bytes: the header, at most 8 x 12
    /// bytes of profile and level, four Exp-Golomb numbers (of up to 8 bytes each).
    static let bytesRead = 200

    /// The NAL unit's type, from its two-byte header.
    static func nalType(_ header: UInt8) -> Int { Int(header >> 1) & 0x3F }

    /// The size in a complete SPS NAL unit (header included, emulation prevention in place).
    static func of(sequenceParameterSet nal: ArraySlice<UInt8>) -> (width: Int, height: Int)? {
        guard nal.count > 2, nalType(nal[nal.startIndex]) == spsType else { return nil }
        var bits = BitReader(unescaping: nal.dropFirst(2))
        guard bits.skip(4),  // sps_video_parameter_set_id
              let maxSubLayersMinus1 = bits.read(3), maxSubLayersMinus1 < 7,
              bits.skip(1),  // sps_temporal_id_nesting_flag
              bits.skipProfileTierLevel(maxSubLayersMinus1: maxSubLayersMinus1),
              bits.readExpGolomb() != nil,  // sps_seq_parameter_set_id
              let chromaFormat = bits.readExpGolomb(),
              chromaFormat != 3 || bits.skip(1),  // separate_colour_plane_flag
              let width = bits.readExpGolomb(), let height = bits.readExpGolomb()
        else { return nil }
        return (width, height)
    }

    /// Reads bits most significant first from an RBSP: the NAL payload with each
    /// emulation prevention byte (the 3 in 00 00 03) taken out.
    private struct BitReader {
        private var bytes: [UInt8] = []
        private var bit = 0

        init(unescaping payload: ArraySlice<UInt8>) {
            var zeros = 0
            for byte in payload.prefix(HEVCPictureSize.bytesRead) {
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
