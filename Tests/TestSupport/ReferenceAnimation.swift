import CGif
import CWebP

/// Every frame of an animation composed at full size by a second implementation, for
/// the player's frames to be checked against: each canvas straight RGBA, 4 bytes a
/// pixel, row after row.
public struct ReferenceAnimation {
    public let width: Int
    public let height: Int
    public let canvases: [[UInt8]]
    /// Each frame's duration in milliseconds as the file states it.
    public let durations: [Int]

    /// libwebp's own compositor, WebPAnimDecoder (the one lazyimg does not use).
    public static func webp(_ bytes: [UInt8]) -> ReferenceAnimation? {
        bytes.withUnsafeBufferPointer { buffer -> ReferenceAnimation? in
            var data = WebPData(bytes: buffer.baseAddress, size: buffer.count)
            var options = WebPAnimDecoderOptions()
            guard WebPAnimDecoderOptionsInit(&options) != 0 else { return nil }
            options.color_mode = MODE_RGBA
            guard let decoder = WebPAnimDecoderNew(&data, &options) else { return nil }
            defer { WebPAnimDecoderDelete(decoder) }
            var info = WebPAnimInfo()
            guard WebPAnimDecoderGetInfo(decoder, &info) != 0 else { return nil }
            let width = Int(info.canvas_width), height = Int(info.canvas_height)
            var canvases: [[UInt8]] = [], durations: [Int] = []
            var previous: Int32 = 0
            while WebPAnimDecoderHasMoreFrames(decoder) != 0 {
                var frame: UnsafeMutablePointer<UInt8>?
                var timestamp: Int32 = 0
                guard WebPAnimDecoderGetNext(decoder, &frame, &timestamp) != 0, let frame else { return nil }
                canvases.append(Array(UnsafeBufferPointer(start: frame, count: width * height * 4)))
                durations.append(Int(timestamp - previous))
                previous = timestamp
            }
            return ReferenceAnimation(width: width, height: height, canvases: canvases, durations: durations)
        }
    }

    /// giflib's DGifSlurp (every image read whole, interlacing undone), composed by the
    /// GIF89a rules as browsers apply them: a transparent canvas; transparent-index
    /// pixels not drawn; disposal 2 clears the frame's rectangle to transparent and 3
    /// puts back the whole canvas as it was before the frame.
    public static func gif(_ bytes: [UInt8]) -> ReferenceAnimation? {
        final class Reader { var bytes: [UInt8] = []; var position = 0 }
        let reader = Reader()
        reader.bytes = bytes
        var error: Int32 = 0
        guard let gif = DGifOpen(Unmanaged.passUnretained(reader).toOpaque(), { gif, buffer, count in
            guard let gif, let buffer, let user = gif.pointee.UserData else { return 0 }
            let reader = Unmanaged<Reader>.fromOpaque(user).takeUnretainedValue()
            let copied = min(Int(count), reader.bytes.count - reader.position)
            for i in 0..<copied { buffer[i] = reader.bytes[reader.position + i] }
            reader.position += copied
            return Int32(copied)
        }, &error) else { return nil }
        defer { DGifCloseFile(gif, &error) }
        guard DGifSlurp(gif) == GIF_OK, gif.pointee.ImageCount > 0, let images = gif.pointee.SavedImages else { return nil }
        let first = images[0].ImageDesc
        let width = gif.pointee.SWidth > 0 ? Int(gif.pointee.SWidth) : Int(first.Left + first.Width)
        let height = gif.pointee.SHeight > 0 ? Int(gif.pointee.SHeight) : Int(first.Top + first.Height)
        var canvas = [UInt8](repeating: 0, count: width * height * 4)
        var canvases: [[UInt8]] = [], durations: [Int] = []
        var undo: (disposal: Int32, rect: GifImageDesc, saved: [UInt8])?
        for index in 0..<Int(gif.pointee.ImageCount) {
            if let undo {
                switch undo.disposal {
                case DISPOSE_BACKGROUND:
                    fill(&canvas, width: width, height: height, rect: undo.rect) { _ in (0, 0, 0, 0) }
                case DISPOSE_PREVIOUS:
                    canvas = undo.saved
                default:
                    break
                }
            }
            var control = GraphicsControlBlock(DisposalMode: DISPOSAL_UNSPECIFIED, UserInputFlag: false, DelayTime: 0,
                                               TransparentColor: NO_TRANSPARENT_COLOR)
            _ = DGifSavedExtensionToGCB(gif, Int32(index), &control)
            let image = images[index]
            undo = (control.DisposalMode, image.ImageDesc, canvas)
            guard let map = image.ImageDesc.ColorMap ?? gif.pointee.SColorMap, let raster = image.RasterBits else {
                return nil
            }
            let desc = image.ImageDesc
            fill(&canvas, width: width, height: height, rect: desc) { (x, y) in
                let index = Int(raster[y * Int(desc.Width) + x])
                guard index != Int(control.TransparentColor), index < Int(map.pointee.ColorCount) else { return nil }
                let colour = map.pointee.Colors[index]
                return (colour.Red, colour.Green, colour.Blue, 255)
            }
            canvases.append(canvas)
            durations.append(10 * Int(control.DelayTime))
        }
        return ReferenceAnimation(width: width, height: height, canvases: canvases, durations: durations)
    }

    /// Sets each pixel of `rect` (clipped to the canvas) that `colour` gives one for
    /// (frame-relative coordinates).
    private static func fill(_ canvas: inout [UInt8], width: Int, height: Int, rect: GifImageDesc,
                             colour: ((x: Int, y: Int)) -> (UInt8, UInt8, UInt8, UInt8)?) {
        canvas.withUnsafeMutableBufferPointer { pixels in
            for y in 0..<Int(rect.Height) where Int(rect.Top) + y < height {
                for x in 0..<Int(rect.Width) where Int(rect.Left) + x < width {
                    guard let pixel = colour((x, y)) else { continue }
                    let offset = ((Int(rect.Top) + y) * width + Int(rect.Left) + x) * 4
                    (pixels[offset], pixels[offset + 1], pixels[offset + 2], pixels[offset + 3]) = pixel
                }
            }
        }
    }
}
