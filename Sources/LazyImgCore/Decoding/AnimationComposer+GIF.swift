import CGif

/// A GIF frame drawn onto the canvas with giflib: opened over the file's header
/// followed directly by the frame's image descriptor (`GIFByteSource` skips the bytes
/// between), so frame n costs its own LZW data, not the frames before it. Lines go
/// straight to their canvas rows, interlaced or not; pixels whose palette entry is
/// transparent (the frame's transparent index, or an index past the table) leave the
/// canvas as it was, as browsers draw them.
extension AnimationComposer {
    func drawGIF(_ frame: AnimationFrame) {
        source.bytes.withUnsafeBufferPointer { bytes in
            guard let base = bytes.baseAddress else { return }
            var input = GIFByteSource(base: base, count: bytes.count, skipping: source.headerEnd..<frame.dataStart)
            withUnsafeMutablePointer(to: &input) { pointer in
                var openError: Int32 = 0
                guard let gif = DGifOpen(pointer, { gif, buffer, count in GIFByteSource.read(gif, buffer, count) },
                                         &openError)
                else { return }
                defer { DGifCloseFile(gif, nil) }
                try? drawImage(gif, transparentIndex: frame.transparentIndex >= 0 ? Int(frame.transparentIndex) : nil)
            }
        }
    }

    private func drawImage(_ gif: UnsafeMutablePointer<GifFileType>, transparentIndex: Int?) throws(LoaderError) {
        var record = UNDEFINED_RECORD_TYPE
        guard DGifGetRecordType(gif, &record) == GIF_OK, record == IMAGE_DESC_RECORD_TYPE,
              DGifGetImageDesc(gif) == GIF_OK
        else { throw .decode }
        let image = gif.pointee.Image
        let left = Int(image.Left), top = Int(image.Top), width = Int(image.Width), height = Int(image.Height)
        let colours = try GIFDecoder.palette(image.ColorMap ?? gif.pointee.SColorMap, transparentIndex: transparentIndex)
        let columns = max(0, min(width, source.canvasWidth - left))
        var line = [GifPixelType](repeating: 0, count: width)
        for row in GIFDecoder.rowOrder(height: height, interlaced: image.Interlace) {
            try GIFDecoder.readLine(gif, into: &line)
            let y = top + row
            guard y < source.canvasHeight, columns > 0 else { continue }
            let out = canvas + y * stride + left * 4
            for x in 0..<columns {
                let colour = colours[Int(line[x])]
                if colour >> 24 != 0 { out.storeBytes(of: colour, toByteOffset: x * 4, as: UInt32.self) }
            }
        }
    }
}
