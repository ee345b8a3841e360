import LazyImgCore

/// Replays a trace through `LandingEstimate` alone, as `ViewState` feeds it (a
/// sample per decelerating frame, abandoned at a touch or a turn, finished at
/// rest), with downloads that take a fixed time: fast enough to tune the
/// estimator's constants over many traces, where the network benchmark takes a
/// trace's length in real time for each loader.
import Glibc
let debugSimulation = getenv("LANDING_DEBUG") != nil
public struct LandingSimulation {
    /// A download and decode: 40 ms server, transfer and decode, as on the
    /// benchmark's site: 100 ms, in frames.
    public static var latencyFrames: Int { Int((0.1 * ScrollTrace.framesPerSecond).rounded()) }
    /// The lead and slow-scroll speed lazyimg uses (ViewState's defaults).
    static let leadSeconds = 0.5
    /// Downloads at once: lazyimg's default max_concurrent_downloads; the rest wait.
    static let slots = 6

    public struct Result: Sendable {
        public var timeToVisible: [Double] = []
        public var requests = 0
        public var wasted = 0
        /// What each decelerating sample cost the estimate (add and landing), ns.
        public var sampleNanoseconds: [Int64] = []
        public var wasteFraction: Double { requests > 0 ? Double(wasted) / Double(requests) : 0 }
        /// What LazyTable's time to visible would be: one download after each settle.
        public static var lazyTableMilliseconds: Double { Double(latencyFrames) * 1000 / ScrollTrace.framesPerSecond }

        mutating func merge(_ other: Result) {
            timeToVisible += other.timeToVisible
            sampleNanoseconds += other.sampleNanoseconds
            requests += other.requests
            wasted += other.wasted
        }
    }

    public static func run(_ trace: ScrollTrace, constants: LandingEstimate.Constants) -> Result {
        var estimate = LandingEstimate(constants: constants)
        // Per row: the frame its download arrives (or arrived); nil = not started.
        var arrival = [Int?](repeating: nil, count: trace.rows)
        var shown = [Bool](repeating: false, count: trace.rows)
        var requested = [Int](repeating: 0, count: trace.rows)
        var zone: Range<Int> = 0..<0
        var previous = ScrollFrame.Motion.idle
        var direction = 1.0
        var result = Result()
        var settledAt: Int?
        // The frames at which the downloads in flight end.
        var busy: [Int] = []
        func start(_ row: Int, at frame: Int) {
            guard arrival[row] == nil else { return }
            if debugSimulation { print("  start \(row) at f\(frame)") }
            busy.removeAll { $0 <= frame }
            busy.sort()
            let begins = busy.count < slots ? frame : busy[busy.count - slots]
            arrival[row] = begins + latencyFrames
            busy.append(begins + latencyFrames)
            requested[row] += 1
        }
        for (index, frame) in trace.frames.enumerated() {
            // The host's calls come a few ms off the frame's tick.
            let seconds = Double(index) / ScrollTrace.framesPerSecond + Double((index * 7) % 5) * 0.0007
            let visible = trace.visibleRange(at: frame.position)
            let screen = visible.count
            let slow = Double(max(1, screen))
            let turned = frame.velocity != 0 && (frame.velocity > 0) != (direction > 0)
            if frame.velocity != 0 { direction = frame.velocity }
            var landing: LandingEstimate.Landing?
            switch frame.motion {
            case .dragging:
                if previous == .decelerating || turned { estimate.abandon() }
            case .idle:
                if previous == .decelerating { estimate.finish(seconds: seconds) } else { estimate.abandon() }
            case .decelerating:
                if turned { estimate.abandon() }
                let before = monotonicNanoseconds()
                estimate.add(seconds: seconds, speed: abs(frame.velocity))
                landing = estimate.landing(top: visible.lowerBound, screen: screen, forward: direction > 0,
                                           slowSpeed: slow, leadSeconds: leadSeconds)
                result.sampleNanoseconds.append(monotonicNanoseconds() - before)
            }
            // The zone in rows, as ViewState maps the offsets.
            var newZone: Range<Int> = 0..<0
            var rest: Range<Int> = 0..<0
            if let landing {
                newZone = landing.rows.clamped(to: 0..<trace.rows)
                rest = landing.rest.clamped(to: 0..<trace.rows)
            }
            let settled = frame.motion == .idle || abs(frame.velocity) < slow
            // Rows that left the zone and have not arrived are cancelled.
            for row in zone where !newZone.contains(row) && !visible.contains(row) {
                if let at = arrival[row], at > index {
                    arrival[row] = nil
                    if let slot = busy.firstIndex(of: at) { busy.remove(at: slot) }
                }
            }
            if debugSimulation, newZone != zone || (frame.motion != previous) {
                print("f\(index) \(frame.motion) v=\(Int(frame.velocity)) top=\(visible.lowerBound) screen=\(screen) zone=\(newZone) learned=\(estimate.flingsLearned) stop=\(Int(estimate.learnedStopSpeed))")
            }
            zone = newZone
            // Visible rows first when slow, then the resting rows, then the rest of the zone.
            if settled { for row in visible { start(row, at: index) } }
            for row in rest { start(row, at: index) }
            for row in zone { start(row, at: index) }
            for row in visible where (arrival[row] ?? .max) <= index { shown[row] = true }

            if frame.motion == .idle {
                if previous != .idle { settledAt = index }
                if let settled = settledAt, visible.allSatisfy({ (arrival[$0] ?? .max) <= index }) {
                    result.timeToVisible.append(Double(index - settled) * 1000 / ScrollTrace.framesPerSecond)
                    settledAt = nil
                }
            } else if let settled = settledAt {
                result.timeToVisible.append(Double(index - settled) * 1000 / ScrollTrace.framesPerSecond)
                settledAt = nil
            }
            previous = frame.motion
        }
        for row in 0..<trace.rows where requested[row] > 0 {
            result.requests += requested[row]
            if !shown[row] { result.wasted += requested[row] }
            if debugSimulation && !shown[row] { print("wasted row \(row) x\(requested[row])") }
        }
        return result
    }
}
