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
            // TurboJPEG 2.1 refuses chroma samplings it has no name for (1x3, mixed
            // factors) after filling in the size; libjpeg decodes those fine, so only
            // the subsampling complaint is forgiven.
            let unnamedSubsampling = headerResult != 0 && subsampling < 0
            guard headerResult == 0 || unnamedSubsampling, width > 0, height > 0 else { throw .decode }
            let storedWidth = Int(width), storedHeight = Int(height)
            // JPEG sides are at most 65535, so this product cannot overflow.
            guard storedWidth * storedHeight <= limits.maxPixels else { throw .tooLarge }
            if let cost = JPEGDecodeCost(scanning: bytes),
               let refusal = cost.refusal(maxWorkingBytes: limits.maxWorkingBytes,
                                          rowBytes: Self.rowBytes(width: storedWidth, components: cost.components.count)) {
                lastFailureReason = refusal
                throw .tooLarge
            }

            let orientation = Self.exifOrientation(in: bytes)
            let displayed = orientation.displayed(width: storedWidth, height: storedHeight)
            let geometry = OutputGeometry(displayedWidth: displayed.width, height: displayed.height,
                                          orientation: orientation, options: options)
            let scaled = Self.scaledSize(width: storedWidth, height: storedHeight, covering: geometry.storedScaled)

            // Any warning (truncated data, a corrupt scan) aborts the decode: a half-grey
            // image cached as a success would never be fetched again.
            var flags = TJFLAG_STOPONWARNING | TJFLAG_LIMITSCANS
            // A DCT-scaled decode is shrunk again by the box filter, which averages away
            // the difference between fancy and plain chroma upsampling: take the fast one
            // (bench-decode: about 4% more thumbnails per second). Full-size decodes keep
            // the accurate one.
            if scaled.width < storedWidth { flags |= TJFLAG_FASTUPSAMPLE }
            // libjpeg has no CMYK-to-RGB conversion: take the ink values and convert here.
            let isCMYK = colorspace == Int32(TJCS_CMYK.rawValue) || colorspace == Int32(TJCS_YCCK.rawValue)
            let pixelFormat = isCMYK ? TJPF_CMYK : TJPF_RGBA
            // TurboJPEG fills RGBA's alpha with 255, and the CMYK conversion does too.
            let builder = DecodedImageBuilder(geometry: geometry, format: options.format, sourceWidth: displayed.width,
                                              sourceHeight: displayed.height, isAnimated: false, opaque: true)
            return try builder.build(decodedWidth: scaled.width, decodedHeight: scaled.height) {
                (destination, pitch) throws(LoaderError) in
                let rc = tjDecompress2(handle, base, size, destination.assumingMemoryBound(to: UInt8.self),
                                       Int32(scaled.width), Int32(pitch), Int32(scaled.height),
                                       Int32(pixelFormat.rawValue), flags)
                // With TJFLAG_STOPONWARNING a warning stops the decode, and in 2.1 any
                // warning also makes the call return -1, tjGetErrorCode reporting
                // TJERR_WARNING rather than TJERR_FATAL. Both kinds are failures here.
                guard rc == 0 else { throw .decode }
                if isCMYK {
                    Self.convertInvertedCMYKToRGBA(destination, width: scaled.width, height: scaled.height, pitch: pitch)
                }
            }
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
    /// both sides. TurboJPEG rounds scaled sides up (its TJSCALED macro), as done here.
    static func scaledSize(width: Int, height: Int, covering box: (width: Int, height: Int)) -> (width: Int, height: Int) {
        var best = (width: width, height: height)
        var count: Int32 = 0
        guard let factors = tjGetScalingFactors(&count) else { return best }
        for factor in UnsafeBufferPointer(start: factors, count: Int(max(count, 0))) {
            let numerator = Int(factor.num), denominator = Int(factor.denom)
            guard numerator > 0, denominator > 0, numerator <= denominator else { continue }
            let scaledWidth = (width * numerator + denominator - 1) / denominator
            let scaledHeight = (height * numerator + denominator - 1) / denominator
            if scaledWidth >= box.width && scaledHeight >= box.height && scaledWidth * scaledHeight < best.width * best.height {
                best = (scaledWidth, scaledHeight)
            }
        }
        return best
    }
}
