/// How stored pixels must be turned to show the picture upright: the eight values of
/// the EXIF/TIFF Orientation tag (0x0112).
///
/// Cameras write the sensor's rows as they come and record the phone's attitude here
/// instead of rotating the pixels, so a portrait photo is often stored sideways.
public enum ImageOrientation: Int, Sendable {
    /// Row 0 is the top, column 0 the left.
    case up = 1
    case upMirrored = 2
    case down = 3
    case downMirrored = 4
    /// Mirrored across the main diagonal (rows become columns).
    case leftMirrored = 5
    /// Shown after a quarter turn clockwise.
    case right = 6
    /// Mirrored across the anti-diagonal.
    case rightMirrored = 7
    /// Shown after a quarter turn anticlockwise.
    case left = 8

    /// Whether the displayed width is the stored height.
    public var swapsAxes: Bool { rawValue >= 5 }

    /// The displayed size of a stored `width` x `height` image.
    func displayed(width: Int, height: Int) -> (width: Int, height: Int) {
        swapsAxes ? (height, width) : (width, height)
    }

    /// The stored pixel shown at displayed (x, y), in an image whose displayed size is
    /// `width` x `height`.
    @inline(__always)
    func storedPosition(ofDisplayed x: Int, _ y: Int, width: Int, height: Int) -> (x: Int, y: Int) {
        switch self {
        case .up: (x, y)
        case .upMirrored: (width - 1 - x, y)
        case .down: (width - 1 - x, height - 1 - y)
        case .downMirrored: (x, height - 1 - y)
        case .leftMirrored: (y, x)
        case .right: (y, width - 1 - x)
        case .rightMirrored: (height - 1 - y, width - 1 - x)
        case .left: (height - 1 - y, x)
        }
    }
}
