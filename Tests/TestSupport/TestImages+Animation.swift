/// Animations whose frame n is filled with `colour(n)`, so any pixel of a frame says
/// which frame it is.
public enum ColourCycle {
    public static func colour(_ frame: Int) -> [UInt8] {
        [UInt8(20 * frame % 256), UInt8((255 - 20 * frame) & 255), UInt8(7 * frame % 256)]
    }

    /// The frame an RGBA pixel belongs to, among `count`.
    public static func frame(ofPixel pixel: [UInt8], count: Int) -> Int? {
        (0..<count).first { colour($0) == Array(pixel.prefix(3)) }
    }

    /// A GIF of `count` (at most 12) frames of `delay` centiseconds, looping forever,
    /// frame n showing colour n + `seed`.
    public static func gif(width: Int, height: Int, count: Int = 12, delay: Int = 5, seed: Int = 0) -> [UInt8] {
        let frames = (0..<count).map {
            GIFTestFrame(width: width, height: height,
                         indices: Array(repeating: UInt8(($0 + seed) % count), count: width * height), delay: delay)
        }
        return makeGIF(screenWidth: width, screenHeight: height, palette: (0..<count).map(colour), frames: frames,
                       loopCount: 0)
    }

    /// The same as a lossless WebP animation of `duration` ms frames.
    public static func webp(width: Int, height: Int, count: Int = 12, duration: Int = 50, loopCount: Int = 0) -> [UInt8] {
        let frames = (0..<count).map { index -> WebPTestFrame in
            let c = colour(index)
            var frame = WebPTestFrame(left: 0, top: 0, width: width, height: height,
                                      webp: makeWebP(width: width, height: height,
                                                     pattern: .solid(red: c[0], green: c[1], blue: c[2])))
            frame.duration = duration
            return frame
        }
        return makeAnimatedWebP(canvasWidth: width, canvasHeight: height, frames: frames, loopCount: loopCount)
    }
}
