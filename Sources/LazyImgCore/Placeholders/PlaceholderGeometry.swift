/// The size a row's placeholder is drawn at for a loader's box: what the box gives,
/// with its long side brought down to `maximumSide`.
///
/// A render's cost grows with its pixels, and it happens on the host's thread at a
/// row's first request: the cap keeps that to tens of microseconds for the hashes
/// feeds send (docs/pending/placeholders.md, from make bench-placeholder). A
/// placeholder is a blur, so a host drawing it larger by scaling loses nothing it had.
struct PlaceholderGeometry {
    static let maximumSide = 64
    /// Box sides beyond this are taken as this: the result is capped far below anyway.
    private static let largestSide = 1 << 24

    /// The grid the hash is drawn on, and the part of it kept (all of it but for a
    /// ThumbHash filling a box of another aspect ratio, which keeps the centre).
    let gridWidth: Int
    let gridHeight: Int
    let visible: (x: Int, y: Int, width: Int, height: Int)

    /// A size scaled down to `maximumSide` on its long side, aspect kept; 0 stays 0.
    private static func capped(_ width: Int, _ height: Int) -> (width: Int, height: Int) {
        let long = max(width, height)
        guard long > maximumSide else { return (width, height) }
        func scaled(_ side: Int) -> Int {
            side == 0 ? 0 : max(1, Int((Double(side) * Double(maximumSide) / Double(long)).rounded()))
        }
        return (scaled(width), scaled(height))
    }

    /// `a * b / c` rounded to nearest, at least 1 (all positive; box sides come in at
    /// most `largestSide`, so nothing overflows).
    private static func proportion(_ a: Int, _ b: Int, _ c: Int) -> Int {
        max(1, (2 * a * b + c) / (2 * c))
    }

    /// A BlurHash carries no aspect ratio: it fills the box. A box with one side 0 gives
    /// a square of the other; no box, the 32 x 32 its authors suggest decoding at.
    static func blurHashSize(box: TargetSize) -> (width: Int, height: Int) {
        let (width, height) = capped(min(max(0, box.width), largestSide), min(max(0, box.height), largestSide))
        switch (width, height) {
        case (0, 0): return (32, 32)
        case (0, _): return (height, height)
        case (_, 0): return (width, width)
        default: return (width, height)
        }
    }

    /// A ThumbHash of aspect ratio `aspect` (`ThumbHash.aspectRatio`, both at least 1)
    /// fits the box as a decoded image does: inside it, then capped; or covering the
    /// capped box and cut to it (`FitMode.fill`, both sides given). No box, the
    /// reference's own size: 32 on the long side.
    init(thumbHashAspect aspect: (width: Int, height: Int), options: DecodeOptions) {
        let boxWidth = min(max(0, options.target.width), Self.largestSide)
        let boxHeight = min(max(0, options.target.height), Self.largestSide)
        let (aw, ah) = aspect
        guard options.fit == .fill, boxWidth > 0, boxHeight > 0 else {
            var fitted: (width: Int, height: Int)
            if boxWidth == 0 && boxHeight == 0 {
                fitted = aw > ah ? (32, Self.proportion(32, ah, aw)) : (Self.proportion(32, aw, ah), 32)
            } else if boxHeight == 0 || (boxWidth > 0 && aw * boxHeight > ah * boxWidth) {
                // Wider than the box: its width sets the size.
                fitted = (boxWidth, Self.proportion(boxWidth, ah, aw))
            } else {
                fitted = (Self.proportion(boxHeight, aw, ah), boxHeight)
            }
            fitted = Self.capped(fitted.width, fitted.height)
            (gridWidth, gridHeight) = fitted
            visible = (0, 0, fitted.width, fitted.height)
            return
        }
        // Cover: the side the box is relatively longer on sets the scale.
        let (width, height) = Self.capped(boxWidth, boxHeight)
        if aw * height > ah * width {
            (gridWidth, gridHeight) = (max(width, Self.proportion(height, aw, ah)), height)
        } else {
            (gridWidth, gridHeight) = (width, max(height, Self.proportion(width, ah, aw)))
        }
        visible = ((gridWidth - width) / 2, (gridHeight - height) / 2, width, height)
    }
}
