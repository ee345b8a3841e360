/// Where a decoded image's pixels come from: the whole displayed image is shrunk to
/// `scaled`, then the `output`-sized rectangle at `cropOrigin` is kept.
///
/// Computed from the displayed (oriented) size, since the box is about what the user
/// sees; `storedScaled` gives the same shrink in the file's own orientation, which is
/// what a decoder's built-in scaling (JPEG DCT, libwebp) must cover.
struct OutputGeometry {
    /// The displayed image's size after shrinking, before the crop.
    let scaled: (width: Int, height: Int)
    /// The top-left corner of the kept rectangle inside `scaled`.
    let cropOrigin: (x: Int, y: Int)
    /// The result's size.
    let output: (width: Int, height: Int)
    let orientation: ImageOrientation

    /// For a file whose displayed size is `width` x `height` (both > 0).
    init(displayedWidth width: Int, height: Int, orientation: ImageOrientation, options: DecodeOptions) {
        self.orientation = orientation
        let box = options.target
        guard options.fit == .fill, box.width > 0, box.height > 0 else {
            let fitted = Resampler.fittedSize(width: width, height: height, in: box)
            scaled = fitted
            cropOrigin = (0, 0)
            output = fitted
            return
        }
        let boxWidth = box.width, boxHeight = box.height
        // boxWidth / boxHeight >= width / height, compared in full width: the box sides
        // come from the host and may be far larger than any image.
        let boxIsWider = boxWidth.multipliedFullWidth(by: height) >= boxHeight.multipliedFullWidth(by: width)
        if width >= boxWidth && height >= boxHeight {
            // Cover: the side the box is relatively longer on sets the scale. Every factor
            // here is at most a source side (< 2^31), so the products fit.
            if boxIsWider {
                scaled = (boxWidth, max(boxHeight, min(height, (height * boxWidth + width / 2) / width)))
            } else {
                scaled = (max(boxWidth, min(width, (width * boxHeight + height / 2) / height)), boxHeight)
            }
            output = (boxWidth, boxHeight)
        } else {
            // The source is smaller than the box on a side: keep its scale and cut the
            // largest centred rectangle with the box's aspect ratio.
            // Doubles, because a box side may be any size here.
            scaled = (width, height)
            let boxAspect = Double(boxWidth) / Double(boxHeight)
            if boxIsWider {
                output = (width, max(1, min(height, Int((Double(width) / boxAspect).rounded()))))
            } else {
                output = (max(1, min(width, Int((Double(height) * boxAspect).rounded()))), height)
            }
        }
        cropOrigin = ((scaled.width - output.width) / 2, (scaled.height - output.height) / 2)
    }

    /// `scaled` in the file's orientation.
    var storedScaled: (width: Int, height: Int) {
        orientation.swapsAxes ? (scaled.height, scaled.width) : scaled
    }

    /// Whether the shrunk image is the result as it is: upright and uncropped.
    var isPlainShrink: Bool {
        orientation == .up && scaled == output
    }
}
