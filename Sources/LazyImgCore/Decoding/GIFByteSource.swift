import CGif

/// The encoded bytes giflib reads from, through the callback `DGifOpen` takes: giflib
/// only knows files and callbacks, and the download is already in memory.
///
/// An animation frame is decoded on its own by skipping from the end of the header
/// (the screen and its colour table, all `DGifOpen` reads) to the frame's image
/// descriptor: `skipped` is the range of bytes passed over.
struct GIFByteSource {
    let base: UnsafePointer<UInt8>
    let count: Int
    let skipped: Range<Int>
    var position = 0

    init(base: UnsafePointer<UInt8>, count: Int, skipping skipped: Range<Int> = 0..<0) {
        self.base = base
        self.count = count
        self.skipped = skipped
    }

    /// giflib's InputFunc: copies up to `wanted` bytes and returns how many. Fewer than
    /// asked (0 at the end) makes giflib report a read error, which ends any decode.
    static func read(_ gif: UnsafeMutablePointer<GifFileType>?, _ buffer: UnsafeMutablePointer<GifByteType>?,
                     _ wanted: Int32) -> Int32 {
        guard let gif, let buffer, wanted > 0,
              let source = gif.pointee.UserData?.assumingMemoryBound(to: GIFByteSource.self)
        else { return 0 }
        var copied = 0
        while copied < Int(wanted) {
            let skipped = source.pointee.skipped
            if !skipped.isEmpty && source.pointee.position == skipped.lowerBound {
                source.pointee.position = skipped.upperBound
            }
            let position = source.pointee.position
            // Up to the end, or to the skip ahead.
            let end = !skipped.isEmpty && position < skipped.lowerBound ? skipped.lowerBound : source.pointee.count
            let chunk = min(Int(wanted) - copied, end - position)
            guard chunk > 0 else { break }
            (buffer + copied).update(from: source.pointee.base + position, count: chunk)
            source.pointee.position += chunk
            copied += chunk
        }
        return Int32(copied)
    }
}
