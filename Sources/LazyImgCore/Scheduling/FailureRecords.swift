/// Remembers URLs that failed moments ago, so a list that asks again every frame
/// gets the error at once instead of hammering the server, and so the record
/// expires: after `retryAfter` the URL is tried again (a failure never blocks a
/// URL forever).
public struct FailureRecords: Sendable {
    public struct Failure: Sendable, Equatable {
        public var error: LoaderError
        public var httpStatus: Int
        public var at: Int64
    }

    /// No failure is remembered: a request's miss need not hash its URL, nor read
    /// the clock. Stored, and first: a miss reads it beside the front's other
    /// fields instead of the table's own storage, a line of its own.
    public private(set) var isEmpty = true
    private var failures: [ImageURL: Failure] = [:] {
        didSet { isEmpty = failures.isEmpty }
    }
    public let retryAfterMilliseconds: Int64

    public init(retryAfterMilliseconds: Int64) {
        self.retryAfterMilliseconds = retryAfterMilliseconds
    }

    public mutating func record(_ url: ImageURL, error: LoaderError, httpStatus: Int, now: Int64) {
        // Bound the table: drop expired records once it grows.
        if failures.count >= 1024 { failures = failures.filter { !isExpired($0.value, now: now) } }
        failures[url] = Failure(error: error, httpStatus: httpStatus, at: now)
    }

    /// The failure of `url` if it is recent enough to answer with.
    public mutating func recentFailure(of url: ImageURL, now: Int64) -> Failure? {
        guard let failure = failures[url] else { return nil }
        if isExpired(failure, now: now) {
            failures[url] = nil
            return nil
        }
        return failure
    }

    private func isExpired(_ failure: Failure, now: Int64) -> Bool {
        now - failure.at >= retryAfterMilliseconds
    }
}
