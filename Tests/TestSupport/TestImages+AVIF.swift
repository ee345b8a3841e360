#if LAZYIMG_AVIF
import CAvif

/// How a generated AVIF is stored: sample depth and chroma, quality, the
/// transformative properties, and an Exif block.
public struct AVIFTestOptions: Sendable {
    /// 8, 10 or 12 bits per sample.
    public var depth = 8
    /// 4:4:4 keeps solid colours close; 4:2:0 is what cameras and encoders default to.
    public var subsampled = false
    /// Lossless (RGB coded as is, quantizer 0) makes every pixel exact in 4:4:4 (in
    /// 4:2:0 only the chroma is averaged); lossy uses this quantizer (0-63).
    public var lossless = true
    public var quantizer = 10
    /// irot: quarter turns anticlockwise (0-3); imir: 0 exchanges top and bottom, 1
    /// left and right; nil for none.
    public var rotation: Int? = nil
    public var mirror: Int? = nil
    /// An Exif payload (TIFF header first), stored as the file's Exif item; its
    /// orientation is not copied to irot/imir (those are `rotation` and `mirror`).
    public var exif: [UInt8]? = nil

    public init(depth: Int = 8, subsampled: Bool = false, lossless: Bool = true, quantizer: Int = 10,
                rotation: Int? = nil, mirror: Int? = nil, exif: [UInt8]? = nil) {
        self.depth = depth
        self.subsampled = subsampled
        self.lossless = lossless
        self.quantizer = quantizer
        self.rotation = rotation
        self.mirror = mirror
        self.exif = exif
    }
}

/// An AVIF of the pattern, encoded by libavif with aom: alpha when the pattern has
/// any below 255. Returns [] when libavif refuses.
public func makeAVIF(width: Int, height: Int, pattern: TestPattern = .gradient,
                     options: AVIFTestOptions = AVIFTestOptions()) -> [UInt8] {
    guard let image = makeAVIFImage(width: width, height: height, pattern: pattern, options: options) else { return [] }
    defer { avifImageDestroy(image) }
    return encodeAVIF(options) { encoder in
        avifEncoderAddImage(encoder, image, 1, AVIF_ADD_IMAGE_FLAG_SINGLE.rawValue)
    }
}

/// An AVIF sequence (brand avis): one frame per pattern, 100 ms each.
public func makeAVIFSequence(width: Int, height: Int, frames: [TestPattern]) -> [UInt8] {
    let options = AVIFTestOptions()
    let images = frames.compactMap { makeAVIFImage(width: width, height: height, pattern: $0, options: options) }
    defer { images.forEach { avifImageDestroy($0) } }
    guard images.count == frames.count else { return [] }
    return encodeAVIF(options) { encoder in
        encoder.pointee.timescale = 10
        for image in images {
            let result = avifEncoderAddImage(encoder, image, 1, AVIF_ADD_IMAGE_FLAG_NONE.rawValue)
            guard result == AVIF_RESULT_OK else { return result }
        }
        return AVIF_RESULT_OK
    }
}

/// A grid AVIF: `columns` x `rows` cells of `cellWidth` x `cellHeight` (at least 64
/// each, as MIAF asks), cell i showing `colours[i]`.
public func makeGridAVIF(columns: Int, rows: Int, cellWidth: Int, cellHeight: Int, colours: [[UInt8]]) -> [UInt8] {
    let options = AVIFTestOptions()
    let cells = colours.compactMap { colour in
        makeAVIFImage(width: cellWidth, height: cellHeight,
                      pattern: .solid(red: colour[0], green: colour[1], blue: colour[2]), options: options)
    }
    defer { cells.forEach { avifImageDestroy($0) } }
    guard cells.count == columns * rows else { return [] }
    return encodeAVIF(options) { encoder in
        cells.map { UnsafePointer($0) as UnsafePointer<avifImage>? }.withUnsafeBufferPointer { list in
            avifEncoderAddImageGrid(encoder, UInt32(columns), UInt32(rows), list.baseAddress,
                                    AVIF_ADD_IMAGE_FLAG_SINGLE.rawValue)
        }
    }
}

private func makeAVIFImage(width: Int, height: Int, pattern: TestPattern,
                           options: AVIFTestOptions) -> UnsafeMutablePointer<avifImage>? {
    let format = options.subsampled ? AVIF_PIXEL_FORMAT_YUV420 : AVIF_PIXEL_FORMAT_YUV444
    guard let image = avifImageCreate(UInt32(width), UInt32(height), UInt32(options.depth), format) else { return nil }
    if options.lossless && !options.subsampled {
        // Lossless AV1 codes the RGB samples themselves (identity matrix), full range.
        image.pointee.matrixCoefficients = UInt16(AVIF_MATRIX_COEFFICIENTS_IDENTITY)
        image.pointee.yuvRange = AVIF_RANGE_FULL
    }
    var rgba = makeRGBA(width: width, height: height, pattern: pattern)
    var rgb = avifRGBImage()
    avifRGBImageSetDefaults(&rgb, image)
    rgb.depth = 8
    rgb.format = AVIF_RGB_FORMAT_RGBA
    // Opaque patterns get no alpha plane.
    rgb.ignoreAlpha = stride(from: 3, to: rgba.count, by: 4).allSatisfy { rgba[$0] == 255 } ? 1 : 0
    rgb.rowBytes = UInt32(width * 4)
    let converted = rgba.withUnsafeMutableBufferPointer { pixels -> avifResult in
        rgb.pixels = pixels.baseAddress
        return avifImageRGBToYUV(image, &rgb)
    }
    if let exif = options.exif {
        // libavif 0.11 also turns the Exif orientation into irot/imir here; the
        // transforms below replace those, so a test can make the two disagree.
        avifImageSetMetadataExif(image, exif, exif.count)
        image.pointee.transformFlags &= ~(AVIF_TRANSFORM_IROT.rawValue | AVIF_TRANSFORM_IMIR.rawValue)
    }
    if let rotation = options.rotation {
        image.pointee.transformFlags |= AVIF_TRANSFORM_IROT.rawValue
        image.pointee.irot.angle = UInt8(rotation)
    }
    if let mirror = options.mirror {
        image.pointee.transformFlags |= AVIF_TRANSFORM_IMIR.rawValue
        image.pointee.imir.mode = UInt8(mirror)
    }
    guard converted == AVIF_RESULT_OK else {
        avifImageDestroy(image)
        return nil
    }
    return image
}

/// Runs `add` on a fresh single-threaded aom encoder at its fastest, then finishes.
private func encodeAVIF(_ options: AVIFTestOptions,
                        _ add: (UnsafeMutablePointer<avifEncoder>) -> avifResult) -> [UInt8] {
    guard let encoder = avifEncoderCreate() else { return [] }
    defer { avifEncoderDestroy(encoder) }
    encoder.pointee.codecChoice = AVIF_CODEC_CHOICE_AOM
    encoder.pointee.maxThreads = 1
    encoder.pointee.speed = AVIF_SPEED_FASTEST
    let quantizer = Int32(options.lossless ? AVIF_QUANTIZER_LOSSLESS : Int32(options.quantizer))
    encoder.pointee.minQuantizer = quantizer
    encoder.pointee.maxQuantizer = quantizer
    encoder.pointee.minQuantizerAlpha = Int32(AVIF_QUANTIZER_LOSSLESS)
    encoder.pointee.maxQuantizerAlpha = Int32(AVIF_QUANTIZER_LOSSLESS)
    var output = avifRWData(data: nil, size: 0)
    guard add(encoder) == AVIF_RESULT_OK, avifEncoderFinish(encoder, &output) == AVIF_RESULT_OK,
          let data = output.data
    else { return [] }
    defer { avifRWDataFree(&output) }
    return Array(UnsafeBufferPointer(start: data, count: output.size))
}

/// The primary image of `avif` as libavif converts it in one piece, RGBA8: what
/// `AVIFDecoder`'s band-by-band conversion must equal. Nil when libavif fails.
public func decodeWithLibavif(_ avif: [UInt8]) -> [UInt8]? {
    guard let decoder = avifDecoderCreate(), let image = avifImageCreateEmpty() else { return nil }
    defer {
        avifImageDestroy(image)
        avifDecoderDestroy(decoder)
    }
    guard avif.withUnsafeBufferPointer({ avifDecoderReadMemory(decoder, image, $0.baseAddress, $0.count) })
        == AVIF_RESULT_OK
    else { return nil }
    var rgb = avifRGBImage()
    avifRGBImageSetDefaults(&rgb, image)
    rgb.depth = 8
    rgb.format = AVIF_RGB_FORMAT_RGBA
    rgb.rowBytes = image.pointee.width * 4
    var pixels = [UInt8](repeating: 0, count: Int(rgb.rowBytes * image.pointee.height))
    let result = pixels.withUnsafeMutableBufferPointer { buffer -> avifResult in
        rgb.pixels = buffer.baseAddress
        return avifImageYUVToRGB(image, &rgb)
    }
    return result == AVIF_RESULT_OK ? pixels : nil
}
#endif
