/// What one loader did over one trace: the figures of one table row.
public struct TraceRun: Sendable {
    public let trace: String
    public let loader: String
    /// Time to visible per settle, ms: from the first frame at rest to the first frame
    /// where every visible row shows its image. A settle that moved on (or ended)
    /// before that counts its whole rest, a lower bound, and is counted in `unfinished`.
    public var timeToVisible: [Double] = []
    public var unfinished = 0
    /// As `timeToVisible`, to the frame where every visible row shows its final image
    /// and no preview (the same as it for loaders without previews).
    public var timeToFinal: [Double] = []
    public var unfinishedFinal = 0
    /// The first screen, before the list first moves: ms from the first frame to
    /// every visible row showing a picture, and its final image (nil: not before it
    /// moved). One entry per round.
    public var firstScreenShown: [Double] = []
    public var firstScreenFinal: [Double] = []
    /// Visible rows at rest without their final image (a preview or nothing), summed
    /// over frames.
    public var notFinalAtRest = 0
    /// Visible rows without their image, summed over frames: at rest, and in all frames.
    public var blankAtRest = 0
    public var blankOverall = 0
    /// The loader's work of each frame on the host thread, ns.
    public var hostNanoseconds: [Int64] = []
    /// The same work in the host thread's CPU time, ns: without the time it waited
    /// for a core, but with the two system calls that read that clock.
    public var hostCPUNanoseconds: [Int64] = []
    /// The motion of each timed frame, in the order of `hostNanoseconds`.
    public var frameMotions: [ScrollFrame.Motion] = []
    /// Frames that started more than a frame late (a busy machine).
    public var lateFrames = 0
    /// Walks of a buffer the busy threads made during the run (`--busy-threads`).
    public var busyPasses = 0
    /// What reached the server: requests, body bytes sent, and requests for rows whose
    /// image never showed in a cell.
    public var requests = 0
    public var bytes = 0
    /// Requests the site answered with the rest of a body (206): downloads resumed.
    public var resumed = 0
    public var wastedRequests = 0
    /// Rows whose image showed in a cell at some frame.
    public var shownRows = 0
    public var wastedRequestLog: [WastedRequest] = []
    public var tally = LoaderTally()

    public init(trace: String, loader: String) {
        self.trace = trace
        self.loader = loader
    }

    public var wasteFraction: Double { requests > 0 ? Double(wastedRequests) / Double(requests) : 0 }

    /// What the site sent per image shown, KiB.
    public var kibibytesPerShownImage: Double { shownRows > 0 ? Double(bytes) / 1024 / Double(shownRows) : 0 }

    /// Adds another round of the same trace and loader.
    public mutating func merge(_ other: TraceRun) {
        timeToVisible += other.timeToVisible
        unfinished += other.unfinished
        timeToFinal += other.timeToFinal
        unfinishedFinal += other.unfinishedFinal
        firstScreenShown += other.firstScreenShown
        firstScreenFinal += other.firstScreenFinal
        notFinalAtRest += other.notFinalAtRest
        blankAtRest += other.blankAtRest
        blankOverall += other.blankOverall
        hostNanoseconds += other.hostNanoseconds
        hostCPUNanoseconds += other.hostCPUNanoseconds
        frameMotions += other.frameMotions
        lateFrames += other.lateFrames
        busyPasses += other.busyPasses
        requests += other.requests
        bytes += other.bytes
        resumed += other.resumed
        wastedRequests += other.wastedRequests
        shownRows += other.shownRows
        wastedRequestLog += other.wastedRequestLog
        tally.tickets += other.tally.tickets
        tally.ticketEvents += other.tally.ticketEvents
        tally.unexpectedEvents += other.tally.unexpectedEvents
        tally.requestErrors += other.tally.requestErrors
        tally.previews += other.tally.previews
        tally.usedScrollTarget = tally.usedScrollTarget || other.tally.usedScrollTarget
    }
}

/// The nearest-rank percentile (`fraction` in 0...1) of `values`; 0 when empty.
func percentile<T: Comparable & Numeric>(_ values: [T], _ fraction: Double) -> T {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    let rank = Int((fraction * Double(sorted.count)).rounded(.up))
    return sorted[min(max(rank, 1), sorted.count) - 1]
}
