extension LoaderConfiguration {
    /// The request for `url` with this loader's limits, timeout and headers, as a data
    /// fetch sends it.
    func dataRequest(for url: ImageURL) -> DataRequest {
        DataRequest(url: url, timeoutMilliseconds: timeoutMilliseconds, maxResponseBytes: maxResponseBytes,
                    userAgent: userAgent, headers: httpHeaders, policy: networkPolicy)
    }

    /// Whether downloads hand the scheduler their prefixes: previews are pixels at
    /// the box, decoded here.
    var wantsPreviews: Bool { previewIntervalMilliseconds > 0 && output == .pixels }

    /// An image's request: a data fetch's, asking for the formats this build decodes.
    /// Encoded output asks for the same: the host that decodes itself and wants other
    /// formats sends an Accept of its own in `httpHeaders`, which replaces this one.
    func imageRequest(for url: ImageURL) -> DataRequest {
        var request = dataRequest(for: url)
        request.accept = ImageFormat.acceptHeader
        // Pixels in a box: the network may stop at a progressive JPEG's DC scans. The
        // host that decodes itself gets whole files.
        if fetchesFirstPassOnly, output == .pixels, target != .original { request.firstPassBox = decodeOptions }
        return request
    }
}
