/// A preview's decode, on a decode thread: a progressive JPEG's complete scans
/// (ended with an EOI on the network thread) as the decoder reads a whole file, or
/// an interlaced PNG's complete Adam7 passes as a browser paints them
/// (`PNGInterlacedPrefix.preview`, which counts them in the same inflate), both at
/// the box.
enum PreviewDecode {
    /// The preview, and the passes it shows (0 for a JPEG); nil when the start
    /// decodes to nothing new: no more PNG passes than `passesShown`, all seven (the
    /// final decode follows), or damage.
    static func image(_ bytes: [UInt8], options: DecodeOptions, limits: DecodeLimits, passesShown: Int,
                      decoder: any ImageDecoding) -> (image: DecodedImage, passes: Int)? {
        guard bytes.starts(with: PreviewPrefixes.pngSignature) else {
            return (try? decoder.decode(bytes, options: options, limits: limits)).map { ($0, 0) }
        }
        guard let preview = try? PNGInterlacedPrefix.preview(bytes, options: options, limits: limits),
              preview.passes > passesShown, preview.passes < 7
        else { return nil }
        return preview
    }
}
