/// The start of a body still downloading that may decode to a picture of its own
/// (`PreviewPrefixes`): a progressive JPEG's complete scans, ended with an EOI, or
/// the start of an interlaced PNG. Handed from the network thread to
/// `DataRequest.onPrefix`.
public struct ReceivedPrefix: Sendable {
    /// What the preview decode reads (`PreviewDecode`).
    public var bytes: [UInt8]
    /// Scans it holds (a PNG's: its length): a later prefix of the same body has more.
    public var stage: Int

    public init(bytes: [UInt8], stage: Int) {
        self.bytes = bytes
        self.stage = stage
    }
}

/// Where a download's prefixes go. The network thread calls it, never with a lock
/// held; it must return at once.
public typealias PrefixSink = @Sendable (ReceivedPrefix) -> Void
