/// The steps every decoder shares after its codec has produced pixels: shrink to the
/// geometry's scale, turn upright, crop, and lay the pixels out in the asked format.
///
/// A codec hands over straight-alpha RGBA8 in the file's orientation, at any size that
/// covers `geometry.storedScaled` (full size, or what its own scaling reached). Shrinking
/// happens before turning and cropping, so those move the fewest pixels; in the common
/// case (upright, no crop, codec already at the output size) the codec writes straight
/// into the result and nothing is copied.
struct DecodedImageBuilder {
    let geometry: OutputGeometry
    let format: PixelFormat
    /// The displayed size in the file, reported as the image's source size.
    let sourceWidth: Int
    let sourceHeight: Int
    let isAnimated: Bool
    /// Every alpha the codec produces is 255 (JPEG; PNG without alpha or tRNS): the
    /// resampler then skips premultiplying and runs four channels per step.
    var opaque = false

    /// The bytes of the buffers a fill crop needs besides its result: the shrunk image
    /// before the crop, whose size follows the file's aspect ratio rather than the
    /// box (a 100 x 500,000 file filling a 100 x 100 box shrinks to 100 x 500,000),
    /// and `decoded`, a codec's own decode of it, when that is a buffer of its own
    /// not counted elsewhere (a JPEG's DCT-scaled decode). Decoders count them as
    /// working memory. Without a crop every buffer is the result, or a DCT-scaled
    /// decode of at most 4 times its pixels (or 1/64 of the file's).
    func cropScratchBytes(decodedSeparately decoded: (width: Int, height: Int)? = nil) -> Int {
        guard geometry.scaled != geometry.output else { return 0 }
        let stored = geometry.storedScaled
        let shrunk = stored.width.multipliedSaturating(by: stored.height).multipliedSaturating(by: 4)
        guard let decoded, decoded != stored else { return shrunk }
        return shrunk.addingSaturating(decoded.width.multipliedSaturating(by: decoded.height).multipliedSaturating(by: 4))
    }

    /// Allocates a `decodedWidth` x `decodedHeight` RGBA8 buffer, lets `decode` fill it
    /// (rows `stride` bytes apart), and makes the result from it.
    func build(decodedWidth: Int, decodedHeight: Int,
               decode: (_ pixels: UnsafeMutableRawPointer, _ stride: Int) throws(LoaderError) -> Void)
        throws(LoaderError) -> DecodedImage {
        let stored = geometry.storedScaled
        // Codecs pick their scale to cover the geometry; anything else is a bug here,
        // reported as a failed decode rather than a read past the buffer.
        guard decodedWidth >= stored.width, decodedHeight >= stored.height else { throw .decode }

        if geometry.isPlainShrink && decodedWidth == stored.width && decodedHeight == stored.height {
            let image = try makeImage(geometry.output, format: format)
            try decode(image.pixels, image.stride)
            Self.convert(image, to: format)
            return image
        }

        let decoded = try makeImage((decodedWidth, decodedHeight), format: .rgba8)
        try decode(decoded.pixels, decoded.stride)
        return try finish(decoded)
    }

    /// For codecs that produce full-size straight RGBA8 rows top to bottom: each row is
    /// shrunk as it arrives (`RowResampler`), so only the result and one row of sums are
    /// held, never the `decodedWidth` x `decodedHeight` image. `decode` passes each row,
    /// in order, to the function it is given.
    func buildByRows(decodedWidth: Int, decodedHeight: Int,
                     decode: (_ addRow: (UnsafeRawPointer) -> Void) throws(LoaderError) -> Void)
        throws(LoaderError) -> DecodedImage {
        try buildByRows(decodedWidth: decodedWidth, decodedHeight: decodedHeight) {
            (addRow: (UnsafeRawPointer, Range<Int>) -> Void) throws(LoaderError) in
            try withoutActuallyEscaping(addRow) { (addRow) throws(LoaderError) in
                try decode { addRow($0, 0..<decodedWidth) }
            }
        }
    }

    /// As above, for rows that are transparent (all zero) outside a range of columns,
    /// which `decode` passes with each row: canvas beside an animation frame.
    func buildByRows(decodedWidth: Int, decodedHeight: Int,
                     decode: (_ addRow: (UnsafeRawPointer, Range<Int>) -> Void) throws(LoaderError) -> Void)
        throws(LoaderError) -> DecodedImage {
        let stored = geometry.storedScaled
        guard decodedWidth >= stored.width, decodedHeight >= stored.height else { throw .decode }
        // Upright and uncropped: straight into the result; else into a scratch image
        // that `finish` turns and crops.
        let plain = geometry.isPlainShrink
        let shrunk = try makeImage(plain ? geometry.output : stored, format: plain ? format : .rgba8)
        guard let rows = RowResampler(sourceWidth: decodedWidth, sourceHeight: decodedHeight, opaque: opaque,
                                      into: shrunk.pixels, width: shrunk.width, height: shrunk.height,
                                      stride: shrunk.stride)
        else { throw .decode }
        try decode { rows.add($0, nonzeroColumns: $1) }
        guard rows.isComplete else { throw .decode }
        guard plain else { return try finish(shrunk) }
        Self.convert(shrunk, to: format)
        return shrunk
    }

    /// Makes the result from straight RGBA8 pixels a codec has already produced, in the
    /// file's orientation and at a size covering `geometry.storedScaled`.
    func finish(_ decoded: DecodedImage) throws(LoaderError) -> DecodedImage {
        let stored = geometry.storedScaled
        guard decoded.width >= stored.width, decoded.height >= stored.height else { throw .decode }
        if geometry.isPlainShrink {
            // Also copies rows when no shrink is needed.
            let image = try makeImage(geometry.output, format: format)
            Resampler.downsample(source: decoded.pixels, width: decoded.width, height: decoded.height,
                                 stride: decoded.stride, opaque: opaque, into: image)
            Self.convert(image, to: format)
            return image
        }
        var shrunk = decoded
        if decoded.width != stored.width || decoded.height != stored.height {
            shrunk = try makeImage(stored, format: .rgba8)
            Resampler.downsample(source: decoded.pixels, width: decoded.width, height: decoded.height,
                                 stride: decoded.stride, opaque: opaque, into: shrunk)
        }
        let image = try makeImage(geometry.output, format: format)
        copyUprightCrop(from: shrunk, into: image)
        Self.convert(image, to: format)
        return image
    }

    /// Scratch buffers are `DecodedImage`s too: the same size checks, freed on release.
    private func makeImage(_ size: (width: Int, height: Int), format: PixelFormat) throws(LoaderError) -> DecodedImage {
        guard let image = DecodedImage(width: size.width, height: size.height, sourceWidth: sourceWidth,
                                       sourceHeight: sourceHeight, format: format, isAnimated: isAnimated)
        else { throw .tooLarge }  // DecodedImage refuses only absurd sizes
        return image
    }

    /// Fills `output` with the geometry's crop of the upright image, reading each pixel
    /// from where the orientation stored it in `shrunk`.
    private func copyUprightCrop(from shrunk: DecodedImage, into output: DecodedImage) {
        let displayedWidth = geometry.scaled.width, displayedHeight = geometry.scaled.height
        let orientation = geometry.orientation
        for y in 0..<output.height {
            let outRow = output.pixels + y * output.stride
            for x in 0..<output.width {
                let stored = orientation.storedPosition(ofDisplayed: x + geometry.cropOrigin.x, y + geometry.cropOrigin.y,
                                                        width: displayedWidth, height: displayedHeight)
                let pixel = shrunk.pixels.loadUnaligned(fromByteOffset: stored.y * shrunk.stride + stored.x * 4,
                                                        as: UInt32.self)
                outRow.storeBytes(of: pixel, toByteOffset: x * 4, as: UInt32.self)
            }
        }
    }

    /// Rewrites straight RGBA in place as `format`.
    private static func convert(_ image: DecodedImage, to format: PixelFormat) {
        switch format {
        case .rgba8:
            return
        case .bgra8Premultiplied:
            for y in 0..<image.height {
                let row = (image.pixels + y * image.stride).assumingMemoryBound(to: UInt8.self)
                for x in 0..<image.width {
                    let pixel = row + 4 * x
                    let alpha = UInt32(pixel[3])
                    let red = UInt8((UInt32(pixel[0]) * alpha + 127) / 255)
                    pixel[0] = UInt8((UInt32(pixel[2]) * alpha + 127) / 255)
                    pixel[1] = UInt8((UInt32(pixel[1]) * alpha + 127) / 255)
                    pixel[2] = red
                }
            }
        }
    }
}
