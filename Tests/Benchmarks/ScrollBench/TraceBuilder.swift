import Glibc

/// A toolkit's glide after a fling: each frame's position and velocity (rows,
/// rows per second) from `position` released at `velocity`, up to the last frame
/// before it stops, and stopping at the ends of the list (`bounds`).
public protocol GlidePhysics: Sendable {
    func glide(from position: Double, velocity: Double,
               within bounds: ClosedRange<Double>) -> [(position: Double, velocity: Double)]
}

/// Writes a trace gesture by gesture: rests, drags, flings (with an optional catch)
/// and animated scrolls, each expanded into frames at the display's rate.
public struct TraceBuilder {
    public let rows: Int
    public let visibleRows: Int
    public var physics = DecelerationPhysics()
    public private(set) var frames: [ScrollFrame] = []
    public private(set) var position = 0.0

    public init(rows: Int, visibleRows: Int) {
        self.rows = rows
        self.visibleRows = visibleRows
    }

    private var bounds: ClosedRange<Double> { 0...Double(max(0, rows - visibleRows)) }
    private static var dt: Double { 1 / ScrollTrace.framesPerSecond }

    private static func frameCount(_ seconds: Double) -> Int {
        max(1, Int((seconds * ScrollTrace.framesPerSecond).rounded()))
    }

    /// The list stands still: the user reads.
    public mutating func rest(seconds: Double) {
        for _ in 0..<Self.frameCount(seconds) {
            frames.append(ScrollFrame(position: position, motion: .idle, velocity: 0))
        }
    }

    /// The finger moves the list at about `rowsPerSecond`; `wobble` (0...1) varies the
    /// speed over the drag as a hand does.
    public mutating func drag(rowsPerSecond: Double, seconds: Double, wobble: Double = 0) {
        let count = Self.frameCount(seconds)
        for index in 0..<count {
            let phase = Double(index) / Double(count) * 2 * Double.pi * 2
            let velocity = rowsPerSecond * (1 + wobble * sin(phase))
            position = min(max(position + velocity * Self.dt, bounds.lowerBound), bounds.upperBound)
            frames.append(ScrollFrame(position: position, motion: .dragging, velocity: velocity))
        }
    }

    /// A short swipe released at `rowsPerSecond`, then the glide by `physics` (the
    /// builder's own unless given). With `catchAfter` (seconds) or `catchAtFraction`
    /// (of the glide's frames), the finger touches the list again then (a catch, the
    /// start of a reverse or of another fling), so it never rests where the toolkit
    /// first said.
    public mutating func fling(rowsPerSecond: Double, catchAfter: Double? = nil, catchAtFraction: Double? = nil,
                               physics glidePhysics: (any GlidePhysics)? = nil) {
        drag(rowsPerSecond: rowsPerSecond, seconds: 0.1)
        let glide = (glidePhysics ?? physics).glide(from: position, velocity: rowsPerSecond, within: bounds)
        let resting = glide.last?.position ?? position
        var kept = catchAfter.map { min(glide.count, Self.frameCount($0)) } ?? glide.count
        if let fraction = catchAtFraction { kept = min(kept, Int(Double(glide.count) * fraction)) }
        for (index, step) in glide.prefix(kept).enumerated() {
            position = step.position
            frames.append(ScrollFrame(position: position, motion: .decelerating, velocity: step.velocity,
                                      restingPosition: index == 0 ? resting : nil))
        }
    }

    /// The velocity of the last frame: what a glide still had when it was caught.
    public var lastVelocity: Double { frames.last?.velocity ?? 0 }

    /// A programmatic animated scroll (scroll to the end, status-bar tap) with an
    /// ease-out curve over `seconds`; the toolkit knows its end from the start.
    public mutating func animatedScroll(to row: Double, seconds: Double) {
        let start = position
        let end = min(max(row, bounds.lowerBound), bounds.upperBound)
        let count = Self.frameCount(seconds)
        for index in 1...count {
            let u = Double(index) / Double(count)
            let eased = 1 - (1 - u) * (1 - u) * (1 - u)
            let next = start + (end - start) * eased
            let velocity = (next - position) / Self.dt
            position = next
            frames.append(ScrollFrame(position: position, motion: .decelerating, velocity: velocity,
                                      restingPosition: index == 1 ? end : nil))
        }
    }

    public var seconds: Double { Double(frames.count) / ScrollTrace.framesPerSecond }

    public func trace(named name: String) -> ScrollTrace {
        ScrollTrace(name: name, rows: rows, visibleRows: visibleRows, frames: frames)
    }
}
