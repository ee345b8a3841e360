import CTurboJPEG

/// Decodes JPEG with TurboJPEG, letting the IDCT do most of the shrinking.
///
/// libjpeg-turbo can decode straight to 1/2, 1/4, 1/8 (and other n/8) of the size,
/// which is far cheaper than decoding everything and averaging it away. The decoder
/// picks the smallest such size that still covers the target box, so the resampler
/// only ever shrinks the rest of the way.
///
/// Holds one TurboJPEG handle, made on first use and reused while decodes succeed:
/// one instance belongs to one thread at a time. After any failure the handle is
/// destroyed, since TurboJPEG 2.1 can leave a handle that refused a file unable to
/// decode the next one; a fresh handle costs a few microseconds.
public final class JPEGDecoder: ImageDecoding {
    private var handle: tjhandle?
    public private(set) var lastFailureReason = ""

    public init() {}

    deinit {
        discardHandle()
    }

    /// Decodes at the smallest DCT scale that covers the asked size, then lets the
    /// builder shrink, turn upright (EXIF orientation) and crop. `sourceWidth/Height`
    /// of the result are the displayed size: swapped for a quarter-turned photo.
    public func decode(_ data: [UInt8], options: DecodeOptions, limits: DecodeLimits) throws(LoaderError) -> DecodedImage {
        lastFailureReason = ""
        do {
            return try decode(data, handle: try readyHandle(), options: options, limits: limits)
        } catch {
            discardHandle()
            throw error
        }
    }

    private func decode(_ data: [UInt8], handle: tjhandle, options: DecodeOptions,
                        limits: DecodeLimits) throws(LoaderError) -> DecodedImage {
        try data.withUnsafeBufferPointer { (bytes) throws(LoaderError) -> DecodedImage in
            guard let base = bytes.baseAddress, !bytes.isEmpty else { throw .decode }
            if case .unsupported = JPEGFrameKind(scanning: bytes) { throw .unsupported }
            let size = UInt(bytes.count)

            var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
            let headerResult = tjDecompressHeader3(handle, base, size, &width, &height, &subsampling, &colorspace)
            // Junk before a header marker is only a warning (the file is damaged). And
            // TurboJPEG 2.1 refuses chroma samplings it has no name for (1x3, mixed
            // factors) after filling in the size; libjpeg decodes those fine, so that
            // complaint is forgiven too.
            let headerWarned = headerResult != 0 && JPEGDamage.onlyWarned(handle)
            let unnamedSubsampling = headerResult != 0 && subsampling < 0
            guard headerResult == 0 || headerWarned || unnamedSubsampling, width > 0, height > 0 else { throw .decode }
            var damaged = headerWarned
            let storedWidth = Int(width), storedHeight = Int(height)
            // JPEG sides are at most 65535, so this product cannot overflow.
            guard storedWidth * storedHeight <= limits.maxPixels else { throw .tooLarge }
            let cost = JPEGDecodeCost(scanning: bytes)
            // A baseline file without its end: the rows it lacks become transparent.
            let received = cost.map { !$0.endsWithEOI && !$0.keepsEveryCoefficient } == true
                ? JPEGReceivedRows(bytes) : nil

            let orientation = Self.exifOrientation(in: bytes)
            let displayed = orientation.displayed(width: storedWidth, height: storedHeight)
            let geometry = OutputGeometry(displayedWidth: displayed.width, height: displayed.height,
                                          orientation: orientation, options: options)
            let scale = Self.scalingFactor(width: storedWidth, height: storedHeight, covering: geometry.storedScaled)
            let scaled = Self.scaled(width: storedWidth, height: storedHeight, by: scale)
            // TurboJPEG fills RGBA's alpha with 255, and the CMYK conversion does too;
            // only the missing rows of a file cut short are transparent.
            let builder = DecodedImageBuilder(geometry: geometry, format: options.format, sourceWidth: displayed.width,
                                              sourceHeight: displayed.height, isAnimated: false, opaque: received == nil)
            let otherBytes = Self.rowBytes(width: storedWidth, components: cost?.components.count ?? 3)
                .addingSaturating(builder.cropScratchBytes(decodedSeparately: scaled))
            let refusal = cost.map { $0.refusal(limits, otherBytes: otherBytes) }
                ?? limits.workingMemoryRefusal("JPEG of \(storedWidth)x\(storedHeight)", needs: otherBytes)
            if let refusal {
                lastFailureReason = refusal
                throw .tooLarge
            }

            // Warnings (junk bytes, a corrupt or cut-off scan) decode on, as browsers
            // show such files; the image says it is damaged.
            var flags = TJFLAG_LIMITSCANS
            // A DCT-scaled decode is shrunk again by the box filter, which averages away
            // the difference between fancy and plain chroma upsampling: take the fast one
            // (bench-decode: about 4% more thumbnails per second). Full-size decodes keep
            // the accurate one.
            if scaled.width < storedWidth { flags |= TJFLAG_FASTUPSAMPLE }
            // libjpeg has no CMYK-to-RGB conversion: take the ink values and convert here.
            let isCMYK = colorspace == Int32(TJCS_CMYK.rawValue) || colorspace == Int32(TJCS_YCCK.rawValue)
            let pixelFormat = isCMYK ? TJPF_CMYK : TJPF_RGBA
            let image = try builder.build(decodedWidth: scaled.width, decodedHeight: scaled.height) {
                (destination, pitch) throws(LoaderError) in
                let rc = tjDecompress2(handle, base, size, destination.assumingMemoryBound(to: UInt8.self),
                                       Int32(scaled.width), Int32(pitch), Int32(scaled.height),
                                       Int32(pixelFormat.rawValue), flags)
                if rc != 0 {
                    guard JPEGDamage.onlyWarned(handle) else { throw .decode }
                    damaged = true
                }
                if isCMYK {
                    Self.convertInvertedCMYKToRGBA(destination, width: scaled.width, height: scaled.height, pitch: pitch)
                }
                if damaged, let received {
                    received.clearMissingRows(destination, width: scaled.width, height: scaled.height, pitch: pitch,
                                              scale: scale)
                }
            }
            image.isDamaged = damaged
            return image
        }
    }

    /// What libjpeg holds per row of the image besides the coefficients, at most:
    /// each component's sample rows for the IDCT and the upsampler (up to 4 x 8 rows of
    /// a byte per sample, twice over for fancy upsampling's context) and the colour
    /// converter's output row.
    static func rowBytes(width: Int, components: Int) -> Int {
        width.multipliedSaturating(by: 64 * max(1, components) + 4)
    }

    /// Turns 4-byte CMYK pixels into opaque RGBA in place.
    ///
    /// Nearly every CMYK JPEG comes from Adobe software, which stores the inks
    /// inverted (255 = no ink), as browsers assume too; then each colour is simply the
    /// product of its stored value and the stored K. No colour management is applied.
    private static func convertInvertedCMYKToRGBA(_ pixels: UnsafeMutableRawPointer, width: Int, height: Int, pitch: Int) {
        for y in 0..<height {
            let row = (pixels + y * pitch).assumingMemoryBound(to: UInt8.self)
            for x in 0..<width {
                let key = UInt32(row[4 * x + 3])
                for channel in 0..<3 {
                    row[4 * x + channel] = UInt8((UInt32(row[4 * x + channel]) * key + 127) / 255)
                }
                row[4 * x + 3] = 255
            }
        }
    }

    private func readyHandle() throws(LoaderError) -> tjhandle {
        if let handle { return handle }
        guard let made = tjInitDecompress() else { throw .noMemory }
        handle = made
        return made
    }

    private func discardHandle() {
        if let handle {
            tjDestroy(handle)
        }
        handle = nil
    }

    /// The smallest DCT-scaled size, no larger than the source, that covers `box` on
    /// both sides.
    static func scaledSize(width: Int, height: Int, covering box: (width: Int, height: Int)) -> (width: Int, height: Int) {
        scaled(width: width, height: height, by: scalingFactor(width: width, height: height, covering: box))
    }

    /// The TurboJPEG scaling factor (at most 1) that gives `scaledSize`.
    static func scalingFactor(width: Int, height: Int, covering box: (width: Int, height: Int))
        -> (numerator: Int, denominator: Int) {
        var best = (numerator: 1, denominator: 1)
        var count: Int32 = 0
        guard let factors = tjGetScalingFactors(&count) else { return best }
        for factor in UnsafeBufferPointer(start: factors, count: Int(max(count, 0))) {
            let candidate = (numerator: Int(factor.num), denominator: Int(factor.denom))
            guard candidate.numerator > 0, candidate.denominator > 0, candidate.numerator <= candidate.denominator
            else { continue }
            let size = scaled(width: width, height: height, by: candidate)
            let bestSize = scaled(width: width, height: height, by: best)
            if size.width >= box.width && size.height >= box.height && size.width * size.height < bestSize.width * bestSize.height {
                best = candidate
            }
        }
        return best
    }

    /// TurboJPEG rounds scaled sides up (its TJSCALED macro), as done here.
    static func scaled(width: Int, height: Int, by factor: (numerator: Int, denominator: Int)) -> (width: Int, height: Int) {
        ((width * factor.numerator + factor.denominator - 1) / factor.denominator,
         (height * factor.numerator + factor.denominator - 1) / factor.denominator)
    }
}
