extension LoaderConfiguration {
    /// The request for `url` with this loader's limits, timeout and headers: images and
    /// data fetches go out alike.
    func dataRequest(for url: ImageURL) -> DataRequest {
        DataRequest(url: url, timeoutMilliseconds: timeoutMilliseconds, maxResponseBytes: maxResponseBytes,
                    userAgent: userAgent, headers: httpHeaders, policy: networkPolicy)
    }
}
