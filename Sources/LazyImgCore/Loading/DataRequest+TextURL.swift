/// Swift callers with a URL as text (tests, tools): it becomes its UTF-8 bytes.
extension DataRequest {
    public init(url: String, timeoutMilliseconds: Int = 15_000, maxResponseBytes: Int = 32 << 20,
                userAgent: String = "lazyimg", headers: [String] = [], policy: NetworkPolicy = NetworkPolicy()) {
        self.init(url: ImageURL(url), timeoutMilliseconds: timeoutMilliseconds, maxResponseBytes: maxResponseBytes,
                  userAgent: userAgent, headers: headers, policy: policy)
    }
}
