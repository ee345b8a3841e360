/// What the host has told the loader about its view: visible rows, scroll state,
/// velocity and where a fling will rest. Derives the `SchedulingWindow` the policy
/// works on.
public struct ViewState: Sendable {
    /// nil until the host first reports a visible range: then nothing is cancelled
    /// for being off screen and requests run in the order they came.
    public private(set) var visible: Range<Int>?
    public private(set) var scroll: ScrollState = .idle
    /// Rows per second, positive toward higher rows.
    public private(set) var velocity: Double = 0
    public private(set) var direction: ScrollDirection = .forward
    /// Where the host says the list will rest; void after the next touch, at rest,
    /// or when the list turns away from it.
    public private(set) var target: Range<Int>? {
        didSet { if target != oldValue { targetWasDue = false } }
    }
    /// The host's target came due in this fling: it stays due until the fling ends
    /// or the target changes. The fit's answer wavers from frame to frame, and the
    /// lead shortens as downloads end; a zone that stopped being due would stop its
    /// rows and start them again a few frames later.
    private var targetWasDue = false
    /// The list's length, to clamp the windows to.
    public var rowCount = 0
    /// Rows past the visible range to prefetch at rest; nil = what the fastest slow
    /// motion travels in the lookahead time (half a screen by default).
    public let prefetchRows: Int?
    /// Below this speed the list loads as if at rest; 0 = one screen per second.
    public let slowRowsPerSecond: Double

    /// Times the host's target (`restIsDue`).
    private var deceleration = DecelerationFit()
    /// The fit's answer for the samples so far, computed once per sample rather than
    /// on every change of the view.
    private var decelerationRemainder: DecelerationFit.Remainder?
    /// Where a fling without a target rests, and what the session's flings taught.
    private var estimate = LandingEstimate()
    /// Its answer for the samples so far, once due.
    private var landing: LandingEstimate.Landing?
    /// A range moved since the last sample and computed `landing` with it: a host
    /// reports the state, then the range, so the next sample can wait for the next
    /// range instead of computing the landing twice a frame (once with a stale top).
    private var rangeUpdatedLanding = false
    /// Whether the motion since the last fast one shows reading: else nothing is
    /// prefetched ahead.
    private var reading = ReadingSignal()
    /// The resting rows and landing zone of the motion that just ended, wanted until
    /// the host reports where the list rested: a UI reports IDLE, then its final
    /// range, and a zone just past the last range reported would otherwise be
    /// cancelled and started again within one frame.
    private var landedUntilNextRange: (rest: Range<Int>, landing: Range<Int>)?

    /// A prefetch window covers the rows that scroll past in this time: five times a
    /// fetch and decode on the benchmark's 40 ms server, twice one on a slow mobile
    /// link...
    static let prefetchLookaheadSeconds = 0.5
    /// ...up to this many times its length at rest.
    static let prefetchGrowthCap = 4
    /// A landing zone (the host's target or an estimate) starts this long before the
    /// list is expected to stop or to slow below the slow-scroll speed (when the
    /// visible rows start anyway): a round trip, a transfer and a decode (~100 ms on
    /// the benchmark's 40 ms server) with room for a second round of downloads.
    /// Earlier, the estimate still moves and the fling may yet be caught.
    static let landingLeadSeconds = 0.5
    /// The lead for the host's target: the loader's own downloads time it
    /// (`DownloadDurations`), as they cannot time the estimate's, which is unsure of the
    /// rest's time as much as of its place.
    var targetLeadSeconds = ViewState.landingLeadSeconds
    /// The deceleration samples that time a host's target span at least this: three
    /// frames at 60 Hz, a tenth of the lead.
    static let targetSampleSeconds = 0.045

    public init(prefetchRows: Int?, slowRowsPerSecond: Double = 0) {
        self.prefetchRows = prefetchRows
        self.slowRowsPerSecond = slowRowsPerSecond
    }

    /// Records a new visible range; movement sets the direction of travel.
    public mutating func setVisible(_ range: Range<Int>) {
        if let old = visible, range.lowerBound != old.lowerBound {
            turn(range.lowerBound > old.lowerBound ? .forward : .backward)
        }
        let moved = visible?.lowerBound != range.lowerBound
        visible = range
        landedUntilNextRange = nil
        if moved && scroll == .decelerating {
            updateLanding()
            rangeUpdatedLanding = true
        }
        noteWhetherTargetIsDue()
    }

    /// A non-zero velocity sets the direction (positive = toward higher rows). While
    /// decelerating, each call is one sample of the decay.
    public mutating func setScroll(_ state: ScrollState, velocity: Double, now milliseconds: Int64) {
        if velocity > 0 { turn(.forward) } else if velocity < 0 { turn(.backward) }
        reading.record(state, fast: abs(velocity) >= slowSpeed, previous: scroll, at: milliseconds)
        switch state {
        case .dragging:
            // A touch: whatever was predicted for the last fling is void.
            if scroll != .dragging { target = nil }
            landedUntilNextRange = nil
            deceleration.reset()
            estimate.abandon()
        case .idle:
            if scroll != .idle {
                let landed = window()
                landedUntilNextRange = landed.landing.isEmpty ? nil : (landed.rest, landed.landing)
            }
            if scroll == .decelerating { estimate.finish(seconds: Double(milliseconds) / 1000) } else { estimate.abandon() }
            target = nil
            deceleration.reset()
        case .decelerating:
            landedUntilNextRange = nil
            deceleration.add(milliseconds: milliseconds, speed: abs(velocity))
            estimate.add(seconds: Double(milliseconds) / 1000, speed: abs(velocity))
        }
        scroll = state
        self.velocity = velocity
        let stopSpeed = estimate.learnedStopSpeed
        decelerationRemainder = state == .decelerating
            ? deceleration.remainder(stopSpeed: stopSpeed, dueSpeed: max(stopSpeed, slowSpeed)) : nil
        if state != .decelerating || !rangeUpdatedLanding { updateLanding() }
        rangeUpdatedLanding = false
        noteWhetherTargetIsDue()
    }

    /// The estimate's landing for the latest sample and visible range: after each
    /// sample, and again when the range moves (the host reports it after the state).
    private mutating func updateLanding() {
        guard scroll == .decelerating, target == nil, let visible else {
            landing = nil
            return
        }
        landing = estimate.landing(top: visible.lowerBound, screen: visible.count, forward: direction == .forward,
                                   slowSpeed: slowSpeed, leadSeconds: Self.landingLeadSeconds)
    }

    /// Below this speed the list loads as if at rest.
    private var slowSpeed: Double {
        slowRowsPerSecond > 0 ? slowRowsPerSecond : Double(max(1, visible?.count ?? 0))
    }

    /// At rest and settled: another IDLE state with velocity 0, or the same visible
    /// range, would change nothing here. The first IDLE call after motion voids the
    /// target and the decay samples, and the first range call after a landing forgets
    /// the landing; until both happened, a repeat still changes something.
    public var repeatsChangeNothing: Bool {
        scroll == .idle && velocity == 0 && target == nil && landedUntilNextRange == nil && visible != nil
    }

    /// The host's prediction of the resting rows; an empty range withdraws it.
    public mutating func setTarget(_ rows: Range<Int>) {
        // The same target again (a host may send it every frame) stays due.
        target = rows.isEmpty ? nil : rows
        noteWhetherTargetIsDue()
    }

    /// Once due, the host's target stays due for the rest of its fling
    /// (`targetWasDue`). Only a fling latches it: a target given while the finger
    /// still drags slowly may yet be flung fast.
    private mutating func noteWhetherTargetIsDue() {
        guard !targetWasDue, scroll == .decelerating, let target, let visible else { return }
        targetWasDue = restIsDue(travelling: Double(abs(targetStart(target) - visible.lowerBound)))
    }

    /// Where a target's rows start: one past the end moves back by its own length,
    /// not the screen's (the visible count changes by one as rows are cut at the
    /// edges, and rows at the zone's edge would leave and come back with it).
    private func targetStart(_ target: Range<Int>) -> Int {
        min(target.lowerBound, max(0, rowCount - target.count))
    }

    /// A reversal voids the samples and the target of the old direction.
    private mutating func turn(_ new: ScrollDirection) {
        guard new != direction else { return }
        direction = new
        deceleration.reset()
        decelerationRemainder = nil
        estimate.abandon()
        landing = nil
        target = nil
    }

    /// The windows for the current view.
    func window() -> SchedulingWindow {
        var window = SchedulingWindow()
        window.direction = direction
        guard let reported = visible else {
            window.motion = scroll == .idle ? .settled : .flying
            return window
        }
        let all = 0..<max(0, rowCount)
        let visible = reported.clamped(to: all)
        window.visible = visible
        let screen = max(1, reported.count)
        let speed = abs(velocity)

        // Prefetch is for slow motion: faster motion starts nothing but its landing
        // zone. So by default it covers what the fastest slow motion travels in the
        // lookahead time (rounded down, so a row cut at the screen's edge, which
        // changes the visible count by one, does not move the window's far end). It
        // covers that time at the present speed when that is more, up to a cap. After
        // a fast motion it is empty until the motion shows reading (`ReadingSignal`).
        let base = max(0, prefetchRows ?? max(1, Int(clamping: slowSpeed * Self.prefetchLookaheadSeconds)))
        let travelled = Int(clamping: (speed * Self.prefetchLookaheadSeconds).rounded(.up))
        let length = reading.showsReading ? min(max(base, travelled), base.multipliedClamped(Self.prefetchGrowthCap)) : 0
        switch direction {
        case .forward: window.ahead = (visible.upperBound..<visible.upperBound.addingClamped(length)).clamped(to: all)
        case .backward: window.ahead = (max(0, visible.lowerBound - length)..<visible.lowerBound).clamped(to: all)
        }

        if let rest = restingRows(from: visible, screen: screen) {
            window.rest = rest.rows.clamped(to: all)
            window.landing = (max(0, rest.rows.lowerBound - rest.before)
                ..< rest.rows.upperBound.addingClamped(rest.after)).clamped(to: all)
        } else if scroll == .idle, let landed = landedUntilNextRange {
            (window.rest, window.landing) = (landed.rest.clamped(to: all), landed.landing.clamped(to: all))
        }

        if scroll == .idle || speed < slowSpeed {
            window.motion = .settled
            // Only where the toolkit said it rests: the estimate's zone can be off by
            // the rows in question (a fling's slow tail drawn out or cut short), and
            // rows it left blank would then be blank at rest.
            if scroll == .decelerating, target != nil, !window.landing.isEmpty {
                window.passing = Self.passing(visible, landing: window.landing, direction: direction,
                                              rows: Self.rowsLeaving(speed: speed, screen: visible.count,
                                                                    leadSeconds: targetLeadSeconds))
            }
        } else {
            window.motion = window.landing.isEmpty ? .flying : .landing
        }
        return window
    }

    /// How many rows at the trailing edge a list at `speed` rows a second leaves
    /// within `leadSeconds`, counting the edge row as half gone already.
    static func rowsLeaving(speed: Double, screen: Int, leadSeconds: Double) -> Int {
        guard speed.isFinite, speed > 0 else { return 0 }
        return Int((min(speed * leadSeconds, Double(max(0, screen))) + 0.5).rounded(.down))
    }

    /// The visible rows a list travelling `rows` more rows in `direction` leaves,
    /// outside `landing` (`SchedulingWindow.passing`).
    static func passing(_ visible: Range<Int>, landing: Range<Int>, direction: ScrollDirection,
                        rows: Int) -> Range<Int> {
        switch direction {
        case .forward:
            let end = min(landing.lowerBound, visible.lowerBound.addingClamped(rows), visible.upperBound)
            return visible.lowerBound..<max(visible.lowerBound, end)
        case .backward:
            let start = max(landing.upperBound, visible.upperBound - min(rows, visible.count), visible.lowerBound)
            return min(start, visible.upperBound)..<visible.upperBound
        }
    }

    /// Where the list will rest and the margins below and above it, once the rest is
    /// due within the lead time: the host's target, else the fitted deceleration.
    private func restingRows(from visible: Range<Int>, screen: Int)
        -> (rows: Range<Int>, before: Int, after: Int)?
    {
        if let target {
            let first = targetStart(target)
            guard targetWasDue || restIsDue(travelling: Double(abs(first - visible.lowerBound))) else { return nil }
            // The toolkit knows where it rests: the margin is only the rows the list
            // shows as it slows into place, on the side it comes from.
            let margin = max(1, screen / 4)
            return (first..<first.addingClamped(target.count),
                    direction == .forward ? margin : 0, direction == .forward ? 0 : margin)
        }
        guard scroll == .decelerating, let landing else { return nil }
        var (rest, rows) = (landing.rest, landing.rows)
        // A list stops at its ends: the rows there, not rows past them.
        let excess = max(0, rest.upperBound - max(rowCount, screen)) - max(0, -rest.lowerBound)
        rest = rest.lowerBound - excess..<rest.upperBound - excess
        rows = rows.lowerBound - excess..<rows.upperBound - excess
        return (rest, max(0, rest.lowerBound - rows.lowerBound), max(0, rows.upperBound - rest.upperBound))
    }

    /// Whether a list decelerating toward the host's target is due to rest within
    /// `targetLeadSeconds`, `distance` rows from now. The target says where, not when,
    /// and a fling is often caught or reversed on its way (then every download
    /// started for the target is wasted): so the target's rows start when the fitted
    /// decay says the list is that close to resting, or to slowing below the
    /// slow-scroll speed.
    /// Samples at a steady speed time the distance at that speed. Until the samples
    /// span `targetSampleSeconds` (a fling just released, at its fastest) nothing is
    /// due yet: a decay fitted over less, or frames run late back to back, can
    /// misjudge the time by a factor of several.
    private func restIsDue(travelling distance: Double) -> Bool {
        // Slower than that already: the visible rows load anyway, the rest is near.
        if scroll != .idle && abs(velocity) < slowSpeed { return true }
        guard scroll == .decelerating, deceleration.samples.count >= 3,
              deceleration.span >= Self.targetSampleSeconds else { return false }
        let seconds: Double
        if let remainder = decelerationRemainder {
            seconds = remainder.secondsToRest(travelling: distance,
                                              orSlowingTo: max(estimate.learnedStopSpeed, slowSpeed))
        } else {
            seconds = velocity == 0 ? 0 : distance / abs(velocity)
        }
        return seconds <= targetLeadSeconds
    }
}

extension Int {
    /// `self + other` without trapping, for row arithmetic on sizes from C.
    func addingClamped(_ other: Int) -> Int {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? Int.max : sum
    }

    func multipliedClamped(_ other: Int) -> Int {
        let (product, overflow) = multipliedReportingOverflow(by: other)
        return overflow ? Int.max : product
    }

    /// The nearest Int to a Double from C, saturating instead of trapping.
    init(clamping value: Double) {
        if value.isNaN || value <= -9.2e18 { self = value.isNaN ? 0 : Int.min }
        else if value >= 9.2e18 { self = Int.max }
        else { self = Int(value) }
    }
}
