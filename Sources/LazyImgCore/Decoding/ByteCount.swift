/// A byte count for a failure message, in MiB with one decimal ("280.4 MiB"), or in
/// KiB below one MiB; rounded up, so what a file needs never reads as the limit it
/// is over.
struct ByteCount: CustomStringConvertible {
    let bytes: Int

    init(_ bytes: Int) {
        self.bytes = bytes
    }

    var description: String {
        guard bytes >= 1 << 20 else { return "\((max(0, bytes) + 1023) / 1024) KiB" }
        let tenths = bytes.multipliedSaturating(by: 10).addingSaturating((1 << 20) - 1) >> 20
        return tenths % 10 == 0 ? "\(tenths / 10) MiB" : "\(tenths / 10).\(tenths % 10) MiB"
    }
}

extension DecodeLimits {
    /// Why a file that needs `bytes` of working memory is refused, or nil when they
    /// fit: "<what>: needs 91.6 MiB to decode (<detail>), over the 64 MiB a decode may
    /// hold".
    func workingMemoryRefusal(_ what: String, needs bytes: Int, detail: String? = nil) -> String? {
        guard bytes > maxWorkingBytes else { return nil }
        return "\(what): needs \(ByteCount(bytes)) to decode" + (detail.map { " (\($0))" } ?? "")
            + ", over the \(ByteCount(maxWorkingBytes)) a decode may hold"
    }
}
