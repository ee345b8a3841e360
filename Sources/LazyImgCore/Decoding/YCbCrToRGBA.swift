#if LAZYIMG_HEIF
/// Turns rows of an HEVC picture's YCbCr planes into straight RGBA8, computing each
/// sample as libheif 1.15 does (so the pixels match its RGB output to the bit): the
/// chroma sample covering each pixel taken as it is (no interpolation), the matrix in
/// `Float`, limited range widened, RGB rounded at the file's depth, and then brought to
/// 8 bits with rounding so that full scale stays full scale.
///
/// A row at a time, into a row the resampler takes next: no full-size RGB exists.
struct YCbCrToRGBA {
    private enum Matrix {
        /// H.273 matrix 0: the planes hold G, B and R.
        case identity
        /// Matrix 8.
        case yCgCo
        case standard(rCr: Float, gCb: Float, gCr: Float, bCb: Float)
    }

    private let picture: HEVCPicture
    private let matrix: Matrix
    private let fullRange: Bool
    private let maxValue: Int
    private let isWide: Bool

    init(_ picture: HEVCPicture, colour: HEIFColour) {
        self.picture = picture
        switch colour.matrix {
        case 0: matrix = .identity
        case 8: matrix = .yCgCo
        default:
            let c = colour.coefficients
            matrix = .standard(rCr: c.rCr, gCb: c.gCb, gCr: c.gCr, bCb: c.bCb)
        }
        fullRange = colour.fullRange
        maxValue = (1 << picture.bitDepth) - 1
        isWide = picture.bitDepth > 8
    }

    @inline(__always)
    private func sample(_ plane: HEVCPicture.Plane, _ x: Int, _ y: Int) -> Int {
        isWide ? Int(UnsafeRawPointer(plane.base).loadUnaligned(fromByteOffset: y * plane.stride + 2 * x, as: UInt16.self))
            : Int(plane.base[y * plane.stride + x])
    }

    /// A value at the picture's depth, clipped, as 8 bits.
    @inline(__always)
    private func narrow(_ value: Int) -> UInt8 {
        let clipped = min(max(value, 0), maxValue)
        return isWide ? UInt8((clipped * 255 + maxValue / 2) / maxValue) : UInt8(clipped)
    }

    /// libheif's clip_f_u16: adds a half and truncates toward zero.
    @inline(__always)
    private func narrow(_ value: Float) -> UInt8 {
        narrow(Int(value + 0.5))
    }

    /// Writes luma columns `columns` of row `y` as RGBA8 (alpha 255) from `pixels` on.
    func convert(row y: Int, columns: Range<Int>, into pixels: UnsafeMutablePointer<UInt8>) {
        let planes = picture.planes
        let half = 1 << (picture.bitDepth - 1)
        let offset = 16 << (picture.bitDepth - 8)
        let chromaY = y >> picture.chromaShift.y
        for x in columns {
            let pixel = pixels + 4 * (x - columns.lowerBound)
            let luma = sample(planes[0], x, y)
            // A monochrome picture reads as mid-scale chroma, as libheif fills it.
            let cb = planes.count == 3 ? sample(planes[1], x >> picture.chromaShift.x, chromaY) : half
            let cr = planes.count == 3 ? sample(planes[2], x >> picture.chromaShift.x, chromaY) : half
            switch matrix {
            case .identity:
                if fullRange {
                    pixel[0] = narrow(cr)
                    pixel[1] = narrow(luma)
                    pixel[2] = narrow(cb)
                } else {
                    pixel[0] = narrow(Float(cr - offset) * 1.1689)
                    pixel[1] = narrow(Float(luma - offset) * 1.1689)
                    pixel[2] = narrow(Float(cb - offset) * 1.1689)
                }
            case .yCgCo:
                let green = cb - half, orange = cr - half
                pixel[0] = narrow(luma - green + orange)
                pixel[1] = narrow(luma + green)
                pixel[2] = narrow(luma - green - orange)
            case .standard(let rCr, let gCb, let gCr, let bCb):
                var yv = Float(luma), u = Float(cb - half), v = Float(cr - half)
                if !fullRange {
                    yv = (yv - Float(offset)) * 1.1689
                    u *= 1.1429
                    v *= 1.1429
                }
                pixel[0] = narrow(yv + rCr * v)
                pixel[1] = narrow(yv + gCb * u + gCr * v)
                pixel[2] = narrow(yv + bCb * u)
            }
            pixel[3] = 255
        }
    }

    /// Writes luma columns `columns` of row `y` as 8-bit alpha: an auxiliary alpha
    /// picture's luma, scaled as colour is.
    func alpha(row y: Int, columns: Range<Int>, into values: UnsafeMutablePointer<UInt8>) {
        for x in columns {
            values[x - columns.lowerBound] = narrow(sample(picture.planes[0], x, y))
        }
    }
}
#endif
