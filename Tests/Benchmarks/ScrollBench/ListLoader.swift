/// A way of loading a list's images, driven by the harness once per frame exactly as
/// a UI would drive it, on the one host thread.
protocol ListLoader: AnyObject {
    /// One frame of the UI's work: the scroll state, the visible rows, cellForRow for
    /// each row that `appeared` (on screen now, not in the last frame), and handling
    /// what arrived. Returns the host's cost of the frame in nanoseconds, timed
    /// inside, around the loader's calls: the harness's own call into a loader
    /// costs about 2 us after a frame's sleep (an empty frame, timed around the
    /// call), which would count in every loader's figure and shrink each ratio.
    func frame(_ frame: ScrollFrame, visible: Range<Int>, appeared: [Int]) -> Int64
    /// Whether the cell of on-screen `row` shows its image (or a preview of it)
    /// after the last frame.
    func isShowingImage(row: Int) -> Bool
    /// Whether that image is the final one, not a preview.
    func isShowingFinalImage(row: Int) -> Bool
    /// Stops all work (waiting for the loader's threads) and says what it counted.
    func finish() -> LoaderTally
}

/// Bookkeeping a loader reports when it finishes, to check the run was sound.
public struct LoaderTally: Sendable {
    /// lazyimg: tickets handed out (PENDING or DEFERRED); baselines: 0.
    public var tickets = 0
    /// Events for those tickets, one each when the contract holds.
    public var ticketEvents = 0
    /// Events for unknown tickets or a second event for one ticket: should be 0.
    public var unexpectedEvents = 0
    /// Requests answered with an error status (no event follows).
    public var requestErrors = 0
    /// Whether lazyimg_set_scroll_target was called.
    public var usedScrollTarget = false
    /// lazyimg: PREVIEW events.
    public var previews = 0
}

extension ListLoader {
    /// A loader without previews shows final images only.
    func isShowingFinalImage(row: Int) -> Bool { isShowingImage(row: row) }
}
