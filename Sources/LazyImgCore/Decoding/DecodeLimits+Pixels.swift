extension DecodeLimits {
    /// Whether a `width` x `height` image is within `maxPixels`; sides read from a file
    /// may be up to 2^32 each, whose product does not fit in Int.
    func admits(width: Int, height: Int) -> Bool {
        guard case (let pixels, false) = width.multipliedReportingOverflow(by: height) else { return false }
        return pixels <= maxPixels
    }
}
