import LazyImgCore

/// Single-threaded thumbnails per second for one set of files, decoded from memory.
struct Throughput {
    let files: Int
    let decodes: Int
    let seconds: Double
    /// A value derived from every output, so no decode can be optimised away.
    let checksum: UInt64

    var thumbnailsPerSecond: Double { Double(decodes) / seconds }

    /// Decodes every file once to warm caches and allocators, then whole passes over
    /// the set until `minimumSeconds` have passed, so each file weighs the same.
    static func measure(_ inputs: [[UInt8]], target: TargetSize, minimumSeconds: Double) throws(LoaderError) -> Throughput {
        let decoder = ImageDecoder()
        let limits = DecodeLimits()
        var checksum: UInt64 = 0
        for bytes in inputs {
            checksum &+= try digest(decoder.decode(bytes, target: target, limits: limits))
        }
        var decodes = 0
        let start = monotonicSeconds()
        var elapsed = 0.0
        repeat {
            for bytes in inputs {
                checksum &+= try digest(decoder.decode(bytes, target: target, limits: limits))
            }
            decodes += inputs.count
            elapsed = monotonicSeconds() - start
        } while elapsed < minimumSeconds
        return Throughput(files: inputs.count, decodes: decodes, seconds: elapsed, checksum: checksum)
    }

    private static func digest(_ image: DecodedImage) -> UInt64 {
        let middle = image.row(image.height / 2)
        return UInt64(image.width) &* 31 &+ UInt64(image.height) &+ UInt64(middle[middle.count / 2])
    }
}
