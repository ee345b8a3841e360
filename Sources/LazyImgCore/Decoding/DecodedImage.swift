/// A loaded image, immutable once built: decoded pixels, top row first, or (for a
/// loader that hands out encoded files) the file's bytes as downloaded.
///
/// Its buffer is owned by the object and freed when the last reference goes, so a
/// host that holds a reference keeps valid data whatever the cache does.
public final class DecodedImage: Sendable {
    public let width: Int
    public let height: Int
    /// Bytes from one row to the next: row `y` starts at `pixels + y * stride`, and
    /// `stride >= 4 * width` (any bytes past `4 * width` are padding, not pixels).
    public let stride: Int
    /// The size the image is shown at before downsampling: the size in the file, with
    /// the sides swapped when a JPEG's EXIF orientation turns it a quarter turn. So a
    /// portrait photo stored sideways reports a portrait size, like its pixels.
    public let sourceWidth: Int
    public let sourceHeight: Int
    /// The layout of each 4-byte pixel.
    public let format: PixelFormat
    /// Whether the file holds more frames than this one (an animated GIF or WebP);
    /// the pixels are always the first frame. Written only by the decoder that made
    /// the image (GIF learns it after drawing the frame), before it is shared.
    nonisolated(unsafe) public internal(set) var isAnimated: Bool
    /// The file's bytes and frames, on the first frame of an animation a loader that
    /// plays animations decoded; nil otherwise. Written only by the loader, before
    /// the image is shared.
    nonisolated(unsafe) public internal(set) var animation: AnimationSource?
    /// Drawn from a placeholder hash (BlurHash, ThumbHash), not decoded from the file:
    /// what a row shows until its image arrives, never the image itself.
    public let isPlaceholder: Bool
    /// Whether the file was damaged and shown as a browser shows it: a JPEG that
    /// libjpeg decoded with warnings (bytes where a marker should be, a cut-off or
    /// corrupt scan; a cut-off baseline file's missing rows are transparent), a PNG
    /// with a bad CRC in a chunk the pixels do not need. Written only by the decoder
    /// that made the image (or the disk cache reading it back), before it is shared.
    nonisolated(unsafe) public internal(set) var isDamaged = false
    /// The pixels, or an encoded image's file bytes. Written only by whoever made the
    /// image, before it is shared.
    nonisolated(unsafe) public let pixels: UnsafeMutableRawPointer
    /// The encoded file's format, sniffed from its bytes; nil when this holds pixels.
    public let codec: ImageFormat?
    private let encodedCount: Int

    /// The bytes the image holds (with the animation it carries); what the memory
    /// cache counts.
    public var byteCount: Int {
        codec == nil ? stride * height + (animation?.byteCount ?? 0) : encodedCount
    }

    /// An encoded image's file bytes; nil when this holds pixels.
    public var encoded: UnsafeRawBufferPointer? {
        codec == nil ? nil : UnsafeRawBufferPointer(start: pixels, count: encodedCount)
    }

    /// Allocates an uninitialised buffer of `stride * height` bytes.
    /// Returns nil when the size overflows or the allocation would be absurd.
    public init?(width: Int, height: Int, stride: Int? = nil, sourceWidth: Int, sourceHeight: Int,
                 format: PixelFormat = .rgba8, isAnimated: Bool = false, isPlaceholder: Bool = false) {
        guard width > 0, height > 0, case (let pixelBytes, false) = width.multipliedReportingOverflow(by: 4) else {
            return nil
        }
        let rowBytes = stride ?? pixelBytes
        guard rowBytes >= pixelBytes,
              case (let total, false) = rowBytes.multipliedReportingOverflow(by: height),
              total <= Int(Int32.max)
        else { return nil }
        self.width = width
        self.height = height
        self.stride = rowBytes
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.format = format
        self.isAnimated = isAnimated
        self.isPlaceholder = isPlaceholder
        self.pixels = UnsafeMutableRawPointer.allocate(byteCount: total, alignment: 16)
        self.codec = nil
        self.encodedCount = 0
    }

    /// An encoded image: a copy of the file's bytes, no pixels, no size (the host
    /// decodes it).
    public init(encoded bytes: [UInt8], codec: ImageFormat) {
        width = 0
        height = 0
        stride = 0
        sourceWidth = 0
        sourceHeight = 0
        format = .rgba8
        isAnimated = false
        isPlaceholder = false
        let storage = UnsafeMutableRawPointer.allocate(byteCount: bytes.count, alignment: 16)
        bytes.withUnsafeBytes { source in
            if let start = source.baseAddress { storage.copyMemory(from: start, byteCount: source.count) }
        }
        pixels = storage
        encodedCount = bytes.count
        self.codec = codec
    }

    deinit {
        pixels.deallocate()
    }

    /// Row `y` as bytes, for decoders filling the image and tests reading it.
    public func row(_ y: Int) -> UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(start: pixels + y * stride, count: width * 4)
    }
}
