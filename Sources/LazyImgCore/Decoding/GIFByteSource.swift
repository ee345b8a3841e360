import CGif

/// The encoded bytes giflib reads from, through the callback `DGifOpen` takes: giflib
/// only knows files and callbacks, and the download is already in memory.
struct GIFByteSource {
    let base: UnsafePointer<UInt8>
    let count: Int
    var position = 0

    init(base: UnsafePointer<UInt8>, count: Int) {
        self.base = base
        self.count = count
    }

    /// giflib's InputFunc: copies up to `wanted` bytes and returns how many. Fewer than
    /// asked (0 at the end) makes giflib report a read error, which ends any decode.
    static func read(_ gif: UnsafeMutablePointer<GifFileType>?, _ buffer: UnsafeMutablePointer<GifByteType>?,
                     _ wanted: Int32) -> Int32 {
        guard let gif, let buffer, wanted > 0,
              let source = gif.pointee.UserData?.assumingMemoryBound(to: GIFByteSource.self)
        else { return 0 }
        let available = source.pointee.count - source.pointee.position
        let copied = min(Int(wanted), available)
        buffer.update(from: source.pointee.base + source.pointee.position, count: copied)
        source.pointee.position += copied
        return Int32(copied)
    }
}
