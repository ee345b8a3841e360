/// How much of a running transfer's body has arrived: what the scheduler needs to
/// tell a download worth finishing from one worth stopping.
public struct TransferProgress: Sendable, Equatable {
    public var received: Int
    /// The announced body size (Content-Length), nil when not announced.
    public var expected: Int?

    public init(received: Int, expected: Int?) {
        self.received = received
        self.expected = expected
    }
}

extension DataLoading {
    /// Transports that cannot tell report nothing; the scheduler then treats every
    /// download as far from done.
    public func progress(of id: TransferID) -> TransferProgress? { nil }
}
