/// The start of a body still downloading that decodes to a picture of its own: a
/// progressive JPEG's complete scans, ended with an EOI (`JPEGScanProgress`).
/// Handed from the network thread to `DataRequest.onPrefix` as each scan completes.
public struct ReceivedPrefix: Sendable {
    /// A file the decoder reads as it reads a whole one.
    public var bytes: [UInt8]
    /// Scans it holds: a later prefix of the same body has more.
    public var stage: Int

    public init(bytes: [UInt8], stage: Int) {
        self.bytes = bytes
        self.stage = stage
    }
}

/// Where a download's prefixes go. The network thread calls it, never with a lock
/// held; it must return at once.
public typealias PrefixSink = @Sendable (ReceivedPrefix) -> Void
