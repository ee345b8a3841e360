/// What the list does in one frame, as a toolkit reports it to its delegate.
public struct ScrollFrame: Sendable {
    public enum Motion: Sendable, Equatable {
        case idle, dragging, decelerating
    }

    /// The top edge of the viewport, in rows (fractional: a row can be half visible).
    public var position: Double
    public var motion: Motion
    /// Rows per second, positive towards higher rows.
    public var velocity: Double
    /// Set on the frame a fling or an animated scroll begins: where the toolkit says
    /// the list will rest (UIKit's targetContentOffset), as the top row.
    public var restingPosition: Double?
}

/// A replayable scroll: one frame per 1/`framesPerSecond` s over a list of `rows`
/// rows of which `visibleRows` fit on screen.
public struct ScrollTrace: Sendable {
    /// The display's rate: 60 Hz, or what `--hz` sets before any trace is made
    /// (120 Hz phones and laptops sample the fling twice as often, a terminal UI
    /// or a busy GTK host at 30 Hz half as often).
    nonisolated(unsafe) public static var framesPerSecond = 60.0

    public let name: String
    public let rows: Int
    public let visibleRows: Int
    public let frames: [ScrollFrame]

    public init(name: String, rows: Int, visibleRows: Int, frames: [ScrollFrame]) {
        self.name = name
        self.rows = rows
        self.visibleRows = visibleRows
        self.frames = frames
    }

    /// The rows on screen with the viewport's top edge at `position`: one more when
    /// a row is cut at the top, as on a real screen.
    public func visibleRange(at position: Double) -> Range<Int> {
        let first = min(max(0, Int(position.rounded(.down))), max(0, rows - 1))
        let cut = position - position.rounded(.down) > 0.001 ? 1 : 0
        return first..<min(rows, first + visibleRows + cut)
    }

    public var seconds: Double { Double(frames.count) / Self.framesPerSecond }
}
