/// A decoded image: RGBA8 with straight alpha, top row first, immutable once built.
///
/// Its pixel buffer is owned by the object and freed when the last reference goes, so
/// a host that holds a reference keeps valid pixels whatever the cache does.
public final class DecodedImage: Sendable {
    public let width: Int
    public let height: Int
    /// Bytes from one row to the next.
    public let stride: Int
    /// The size encoded in the file, before downsampling.
    public let sourceWidth: Int
    public let sourceHeight: Int
    /// Written only by the decoder that made the image, before it is shared.
    nonisolated(unsafe) public let pixels: UnsafeMutableRawPointer

    /// The bytes the pixel buffer holds; what the memory cache counts.
    public var byteCount: Int { stride * height }

    /// Allocates an uninitialised buffer of `stride * height` bytes.
    /// Returns nil when the size overflows or the allocation would be absurd.
    public init?(width: Int, height: Int, stride: Int? = nil, sourceWidth: Int, sourceHeight: Int) {
        let rowBytes = stride ?? width &* 4
        guard width > 0, height > 0, rowBytes >= width &* 4,
              case (let total, false) = rowBytes.multipliedReportingOverflow(by: height),
              total <= Int(Int32.max)
        else { return nil }
        self.width = width
        self.height = height
        self.stride = rowBytes
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.pixels = UnsafeMutableRawPointer.allocate(byteCount: total, alignment: 16)
    }

    deinit {
        pixels.deallocate()
    }

    /// Row `y` as bytes, for decoders filling the image and tests reading it.
    public func row(_ y: Int) -> UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(start: pixels + y * stride, count: width * 4)
    }
}
