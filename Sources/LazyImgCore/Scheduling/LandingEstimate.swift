import Glibc

/// Where a fling will rest when the host gives no target, and how sure that is: a
/// pure value fed the speeds of a deceleration with their times, and told how each
/// fling ended. It owns what it learns of the list's physics over a session.
///
/// Each frame it fits three curve families to the last samples (`DecayCurve`:
/// exponential, between, constant braking), and pairs each with the speeds at which
/// the list may stop. Every pair is a hypothesis with a weight and a log-normal
/// spread of the distance left, so a row's probability of being visible at rest is
/// a sum over them. Rows start by that probability while their expected waste (the
/// sum of one minus it) stays within a budget: a sure estimate starts a screen, an
/// unsure one widens only as far as the budget allows.
///
/// A fling that ends by itself (IDLE, not a touch) teaches its stop speed and, for
/// each curve family, how far off the family's predictions of the distance and
/// the time left were over its last second (biases and a spread). Learned values
/// are shrunk toward the prior as if the prior were one more fling, so one fling
/// never decides alone; the first fling of a session has only the prior: several
/// stop speeds and wide spreads.
public struct LandingEstimate: Sendable {
    public struct Constants: Sendable, Equatable {
        /// A landing row starts only when its probability of being visible at rest
        /// is at least this...
        public var visibility: Double
        /// ...and while the expected waste of the rows started (one minus their
        /// probability, summed) stays within this many screens.
        public var wasteBudget: Double
        /// The spread (sigma of the log) of a distance a curve family predicts
        /// before any fling has calibrated it.
        public var priorSpread: Double
        /// The landing is due when this weighted fraction of the hypotheses say the
        /// list rests, or slows below the slow-scroll speed, within the lead time.
        public var dueQuantile: Double
        /// How many flings the prior stop speeds count as against the learned one
        /// (0.5: one fling that stopped holds two thirds of the weight, two hold
        /// four fifths; never all of it).
        public var priorFlings: Double

        public init(visibility: Double, wasteBudget: Double, priorSpread: Double, dueQuantile: Double,
                    priorFlings: Double) {
            self.visibility = visibility
            self.wasteBudget = wasteBudget
            self.priorSpread = priorSpread
            self.dueQuantile = dueQuantile
            self.priorFlings = priorFlings
        }

        /// Fitted by `lazyimg-bench-scroll --tune` with one family held out (see
        /// docs/pending/landing-estimate.md).
        public static let tuned = Constants(visibility: 0.4, wasteBudget: 0.25, priorSpread: 0.4, dueQuantile: 0.3,
                                            priorFlings: 0.5)
    }

    /// Where a fling will rest, in rows of the list.
    public struct Landing: Equatable, Sendable {
        /// The rows at least as likely as not to be visible at rest.
        public let rest: Range<Int>
        /// The rows to start: `rest` and the likely rows around it.
        public let rows: Range<Int>
    }

    private struct Sample {
        let time: Double
        let speed: Double
        /// Rows travelled since the fling's first sample.
        let distance: Double
        /// The speed transformed for each of `DecayCurve.exponents`.
        let transformed: (Double, Double, Double)
    }

    /// Running sums of a weighted least-squares line of a transformed speed y
    /// against time t (from the fling's first sample), weights 1 / (dy/dv v)^2.
    private struct ShapeFit {
        var count = 0
        var w = 0.0, t = 0.0, y = 0.0, tt = 0.0, ty = 0.0, yy = 0.0

        mutating func add(time: Double, transformed: Double, weight: Double) {
            count += 1
            w += weight
            t += weight * time
            y += weight * transformed
            tt += weight * time * time
            ty += weight * time * transformed
            yy += weight * transformed * transformed
        }

        /// The sum of squared relative errors of the line, nil without a decay.
        var squaredError: Double? {
            guard w > 0 else { return nil }
            let stt = tt - t * t / w, sty = ty - t * y / w, syy = yy - y * y / w
            guard stt > 0, sty < 0 else { return nil }
            return max(0, syy - sty * sty / stt)
        }
    }

    /// What earlier flings of the session taught about one curve family.
    private struct Calibration {
        /// Per fling, the median log of actual over predicted distance left...
        var errors: [Double] = []
        /// ...and of actual over predicted seconds to the stop.
        var timeErrors: [Double] = []
    }

    public let constants: Constants
    /// The current fling, its last `memorySeconds` of samples.
    private var samples: [Sample] = []
    private var stopSpeeds: [Double] = []
    private var calibrations = [Calibration](repeating: Calibration(), count: DecayCurve.exponents.count)
    /// Each family's fit to the whole fling so far, weighted to relative speed error
    /// so the three compare: how a curve family explains the fling's shape, which a
    /// quarter second cannot tell (an exponential and a line differ there by less
    /// than the jitter of the host's frame times).
    private var shapes = [ShapeFit](repeating: ShapeFit(), count: DecayCurve.exponents.count)
    /// The time of the fling's first sample, where the shape fits count from.
    private var flingStart: Double?
    /// Each family's curve through the window of the latest sample.
    private var fitted = [DecayCurve?](repeating: nil, count: DecayCurve.exponents.count)
    /// Each family's biases (distance, time) and spread, from `calibrations`.
    private var calibrated: [(bias: Double, spread: Double, timeBias: Double)]
    /// The rows this fling's landing has asked for so far: kept while the list has
    /// not passed them (near side) or while still fairly likely (far side), so a
    /// zone that wavers by a row does not cancel and restart its edges.
    private var held: Range<Int>?
    /// Since when (the sample's time) the far end of `held` has been too unlikely to
    /// keep; nil while it is likely enough.
    private var farEndUnlikelySince: Double?
    /// This fling's last landing: kept while the rows grow too unsure to ask for
    /// (a curve family falling out of favour), rather than withdrawn.
    private var last: Landing?

    /// The curves are fitted to the samples of the last quarter second, whatever the
    /// host's frame rate (16 samples at 60 Hz, 31 at 120, 8 at 30; the extra 4 ms
    /// is the jitter of the host's frame times); older ones describe a speed the
    /// list no longer has. Counted in samples, a 120 Hz host's fits spanned an
    /// eighth of a second and followed each frame's jitter (docs/performance.md,
    /// "A host at 120 Hz").
    static let windowSeconds = 0.254
    /// At most this many samples a fit (a quarter second at 240 Hz), and at least 3.
    static let maxWindow = 64
    /// Samples kept of a fling: its last two seconds, where the checkpoints are...
    static let memorySeconds = 2.0
    /// ...at most this many (two seconds at 240 Hz): a host that calls faster keeps
    /// less time, and the work of a sample stays bounded.
    static let maxMemory = 512
    /// Flings remembered: the session's physics, not its first minute.
    static let remembered = 8
    /// A fling teaches its errors from these seconds before its end: about where
    /// landings are due.
    static let checkpoints: ClosedRange<Double> = 0.15...1.2
    /// Rows asked for at the far end of a landing are withdrawn only once they have
    /// been too unlikely to keep for this long. The zone is computed afresh at each
    /// sample, and an edge row near the threshold falls out and comes back within a
    /// frame or two: counted in samples, a 120 Hz host cancelled and restarted it
    /// twice as often as a 60 Hz one.
    static let withdrawSeconds = 0.1
    /// No landing before the fling's samples span this: three samples at 60 Hz
    /// (less 3 ms of jitter). Three samples at 144 Hz span 14 ms, over which the
    /// release's first frames decide the fit; a landing due then was often a
    /// screen past the rest.
    static let minimumSpanSeconds = 0.03
    /// Stop speeds the first flings may have, in screens per second, and their
    /// weights: gliding to a crawl (Android, Qt, Flutter, GTK), or snapping to
    /// rest at a fraction of a screen a second, or at a few screens a second.
    static let priorStopSpeeds: [(screensPerSecond: Double, weight: Double)] = [(0, 0.5), (0.5, 0.25), (3, 0.25)]
    /// Rows the search for the likeliest row may walk from where the median
    /// distance points: the work of one sample stays bounded.
    static let climb = 64
    /// The smallest spread a calibrated family keeps: the jitter of frame times.
    static let minimumSpread = 0.08
    /// The relative error of a speed sample the shape likelihoods allow at least:
    /// a frame 2 ms off its tick in a fling slowing by a factor of e every half
    /// second, with room for hosts that smooth their velocity.
    static let shapeNoise = 0.02

    public init(constants: Constants = .tuned) {
        self.constants = constants
        calibrated = Array(repeating: (0, constants.priorSpread, 0), count: DecayCurve.exponents.count)
        samples.reserveCapacity(Self.maxMemory)
    }

    /// Flings of this session that ended by themselves and were learned from.
    public var flingsLearned: Int { stopSpeeds.count }

    /// The speed at which the session's flings stop (the median of those learned),
    /// 0 before any.
    public var learnedStopSpeed: Double { Self.median(stopSpeeds) ?? 0 }

    /// One sample of a deceleration: seconds on the loader's clock, rows per second
    /// without sign.
    public mutating func add(seconds: Double, speed: Double) {
        guard speed.isFinite, speed > 0, seconds.isFinite else { return }
        var distance = 0.0
        if let last = samples.last {
            guard seconds >= last.time else { return }
            distance = last.distance + (seconds - last.time) * (last.speed + speed) / 2
        }
        while let first = samples.first,
              samples.count >= Self.maxMemory || seconds - first.time > Self.memorySeconds {
            samples.removeFirst()
        }
        let e = DecayCurve.exponents
        samples.append(Sample(time: seconds, speed: speed, distance: distance,
                              transformed: (DecayCurve.transform(speed, exponent: e[0]),
                                            DecayCurve.transform(speed, exponent: e[1]),
                                            DecayCurve.transform(speed, exponent: e[2]))))
        if flingStart == nil { flingStart = seconds }
        let t = seconds - (flingStart ?? seconds)
        for (family, exponent) in e.enumerated() {
            fitted[family] = curve(family, endingAt: samples.count - 1)
            let q = 1 - exponent
            let weight = exponent == 1 ? 1 : 1 / (q * q * pow(speed, 2 * q))
            shapes[family].add(time: t, transformed: DecayCurve.transform(speed, exponent: exponent), weight: weight)
        }
    }

    /// The fling was caught or turned: it teaches nothing about where flings stop.
    public mutating func abandon() {
        samples.removeAll(keepingCapacity: true)
        fitted = fitted.map { _ in nil }
        shapes = shapes.map { _ in ShapeFit() }
        flingStart = nil
        held = nil
        farEndUnlikelySince = nil
        last = nil
    }

    /// The list came to rest at `seconds`. When the last sample is that recent, the
    /// fling ran its course: its stop speed and each family's errors are learned.
    public mutating func finish(seconds: Double) {
        defer { abandon() }
        guard samples.count >= 4, let last = samples.last, seconds - last.time <= 0.1 else { return }
        Self.remember(last.speed, in: &stopSpeeds)
        for family in DecayCurve.exponents.indices {
            var errors: [Double] = [], timeErrors: [Double] = []
            for end in 3..<samples.count where Self.checkpoints.contains(last.time - samples[end].time) {
                guard let curve = curve(family, endingAt: end) else { continue }
                let predicted = curve.distance(toSpeed: last.speed)
                let actual = last.distance - samples[end].distance
                if predicted > 0.5 && actual > 0.5 { errors.append(log(actual / predicted)) }
                let seconds = curve.seconds(toSpeed: last.speed)
                if seconds > 0.02 { timeErrors.append(log((last.time - samples[end].time) / seconds)) }
            }
            if let error = Self.median(errors) { Self.remember(error, in: &calibrations[family].errors) }
            if let error = Self.median(timeErrors) { Self.remember(error, in: &calibrations[family].timeErrors) }
            calibrated[family] = calibration(family)
        }
    }

    /// Where the list will rest, once that is due within `leadSeconds` (the rest, or
    /// slowing below `slowSpeed` rows per second, when the visible rows load
    /// anyway); nil before, or while the samples show no decay. `top`: the first
    /// visible row now, `screen` the visible row count, `forward` the direction.
    public mutating func landing(top: Int, screen: Int, forward: Bool, slowSpeed: Double,
                                 leadSeconds: Double) -> Landing? {
        let screen = max(1, screen)
        guard let first = samples.first, let newest = samples.last,
              newest.time - first.time >= Self.minimumSpanSeconds || held != nil else { return nil }
        // Offsets count in the direction of travel: going forward, offset j is the
        // row j below the top visible row; going back, the row j above the bottom one.
        func row(_ j: Int) -> Int { forward ? top.addingClamped(j) : top.addingClamped(screen) - j }
        var hypotheses: [(distance: Double, seconds: Double, spread: Double, weight: Double)] = []
        hypotheses.reserveCapacity(DecayCurve.exponents.count * (Self.priorStopSpeeds.count + 1))
        let stops = stopSpeedHypotheses(screen: screen)
        let shape = shapeLikelihoods()
        var familyWeights = 0.0
        for family in DecayCurve.exponents.indices {
            guard let curve = fitted[family], shape[family] > 0 else { continue }
            let (bias, spread, timeBias) = calibrated[family]
            let weight = shape[family] / (spread * spread)
            familyWeights += weight
            for stop in stops {
                let distance = curve.distance(toSpeed: stop.speed) * exp(bias)
                let seconds = curve.seconds(toSpeed: max(stop.speed, slowSpeed)) * exp(timeBias)
                hypotheses.append((distance, seconds, spread, weight * stop.weight))
            }
        }
        guard familyWeights > 0 else { return nil }
        let total = hypotheses.reduce(0) { $0 + $1.weight }

        // Due once enough of the weight rests (or slows) within the lead; and due
        // from then on, as a zone withdrawn and asked again a frame later cancels
        // and restarts its downloads.
        let due = hypotheses.reduce(0) { $0 + ($1.seconds <= leadSeconds ? $1.weight : 0) }
        guard due >= constants.dueQuantile * total || held != nil else { return nil }

        // G(d): the probability that the distance left is under d, at d = k + 0.5
        // for k in -screen-1 ... far. Row offset j is visible at rest when the list
        // travels between j - screen - 0.5 and j + 0.5 rows from here.
        // No row can be likely enough while every hypothesis spreads its distance over
        // many screens: a log-normal's density peaks at e^(s^2/2) / (m s sqrt(2 pi)),
        // so a window of screen + 1 rows holds at most that much of it.
        let bound = hypotheses.reduce(0) { sum, h in
            let peak = exp(h.spread * h.spread / 2) / (max(h.distance, 0.25) * h.spread * (2 * Double.pi).squareRoot())
            return sum + h.weight * min(1, Double(screen + 1) * peak)
        } / total
        guard bound >= constants.visibility else { return last }

        // Computed only where asked (the zone and its edges), as this runs on every
        // sample of a landing.
        let far = min(4_096, Int(hypotheses.reduce(0) { max($0, $1.distance * exp(2.5 * $1.spread)) }.rounded(.up)) + 1)
        let base = -screen - 1
        var cumulative = [Double](repeating: .nan, count: far - base + 1)
        let logDistances = hypotheses.map { log(max($0.distance, 0.25)) }
        func probabilityLeft(under k: Int) -> Double {
            if !cumulative[k - base].isNaN { return cumulative[k - base] }
            let d = Double(k) + 0.5
            var sum = 0.0
            if d > 0 {
                let logD = log(d)
                for (h, logDistance) in zip(hypotheses, logDistances) {
                    sum += h.weight * 0.5 * erfc((logDistance - logD) / (h.spread * 2.squareRoot()))
                }
            }
            cumulative[k - base] = sum / total
            return sum / total
        }
        func visible(_ j: Int) -> Double {
            guard j >= 0, j <= far else { return 0 }
            return probabilityLeft(under: j) - probabilityLeft(under: j - screen - 1)
        }
        // The likeliest row: climb from the one the weighted median distance shows
        // mid-screen.
        var middle = 0.0, seen = 0.0
        for h in hypotheses.sorted(by: { $0.distance < $1.distance }) where seen < total / 2 {
            seen += h.weight
            middle = h.distance
        }
        var best = min(far, max(0, Int(middle.rounded()) + screen / 2))
        var steps = 0
        while best < far && steps < Self.climb && visible(best + 1) > visible(best) { (best, steps) = (best + 1, steps + 1) }
        while best > 0 && steps < Self.climb && visible(best - 1) > visible(best) { (best, steps) = (best - 1, steps + 1) }
        guard visible(best) >= constants.visibility else { return last }
        var low = best, high = best
        var waste = 1 - visible(best)
        let budget = constants.wasteBudget * Double(screen)
        while true {
            let below = visible(low - 1), above = visible(high + 1)
            let next = max(below, above)
            guard next >= constants.visibility, waste + 1 - next <= budget else { break }
            waste += 1 - next
            if below >= above { low -= 1 } else { high += 1 }
        }
        var restLow = best, restHigh = best
        while restLow > low && visible(restLow - 1) >= 0.5 { restLow -= 1 }
        while restHigh < high && visible(restHigh + 1) >= 0.5 { restHigh += 1 }
        if let held {
            // Offsets of the rows asked for before: the near ones the list has not
            // passed stay (it shows them on its way), the far ones while likely.
            let a = forward ? held.lowerBound - top : top + screen - (held.upperBound - 1)
            let b = forward ? held.upperBound - 1 - top : top + screen - held.lowerBound
            low = max(0, min(low, a))
            while high < b && visible(high + 1) >= constants.visibility / 2 { high += 1 }
            let now = samples.last?.time ?? 0
            if high >= b {
                farEndUnlikelySince = nil
            } else if let since = farEndUnlikelySince, now - since >= Self.withdrawSeconds {
                farEndUnlikelySince = nil
            } else {
                if farEndUnlikelySince == nil { farEndUnlikelySince = now }
                high = b
            }
        }
        let rows = forward ? row(low)..<row(high).addingClamped(1) : row(high)..<row(low).addingClamped(1)
        held = rows
        let rest = forward ? row(restLow)..<row(restHigh).addingClamped(1)
            : row(restHigh)..<row(restLow).addingClamped(1)
        last = Landing(rest: rest, rows: rows)
        return last
    }

    /// How likely each family makes the fling's shape so far, relative to the best:
    /// Gaussian in the relative errors, whose size is the best fit's own (at least
    /// `shapeNoise`: the jitter of frame times).
    private func shapeLikelihoods() -> [Double] {
        let errors = shapes.map(\.squaredError)
        guard let best = errors.compactMap({ $0 }).min() else { return errors.map { _ in 0 } }
        let n = Double(shapes[0].count)
        let noise = max(best / max(1, n - 2), Self.shapeNoise * Self.shapeNoise)
        return errors.map { error in error.map { exp(-($0 - best) / (2 * noise)) } ?? 0 }
    }

    /// The curve of family `family` fitted to the window of samples ending at `end`.
    private func curve(_ family: Int, endingAt end: Int) -> DecayCurve? {
        guard end >= 2 else { return nil }
        let endTime = samples[end].time
        var start = end - 2
        while start > 0 && end - start + 1 < Self.maxWindow && endTime - samples[start - 1].time <= Self.windowSeconds {
            start -= 1
        }
        return DecayCurve.fit(exponent: DecayCurve.exponents[family], count: end - start + 1,
                              times: { samples[start + $0].time },
                              transformed: { i in
                                  let t = samples[start + i].transformed
                                  return family == 0 ? t.0 : family == 1 ? t.1 : t.2
                              })
    }

    /// The stop speeds this fling may end at, rows per second, with weights adding
    /// to 1: the learned median as `n` flings against the prior as one.
    private func stopSpeedHypotheses(screen: Int) -> [(speed: Double, weight: Double)] {
        let n = Double(stopSpeeds.count)
        let prior = constants.priorFlings
        var result = Self.priorStopSpeeds.map { ($0.screensPerSecond * Double(screen), $0.weight * prior / (n + prior)) }
        if let learned = Self.median(stopSpeeds) { result.append((learned, n / (n + prior))) }
        return result
    }

    /// A family's bias (log of actual over predicted) and spread, its learned
    /// errors shrunk toward no bias and the prior spread as if the prior were one
    /// more fling.
    private func calibration(_ family: Int) -> (bias: Double, spread: Double, timeBias: Double) {
        let errors = calibrations[family].errors, timeErrors = calibrations[family].timeErrors
        let timeBias = (Self.median(timeErrors) ?? 0) * Double(timeErrors.count) / Double(timeErrors.count + 1)
        guard let median = Self.median(errors) else { return (0, constants.priorSpread, timeBias) }
        let n = Double(errors.count)
        let deviation = 1.4826 * (Self.median(errors.map { abs($0 - median) }) ?? 0)
        let variance = (n * deviation * deviation + constants.priorSpread * constants.priorSpread) / (n + 1)
        return (median * n / (n + 1), max(Self.minimumSpread, variance.squareRoot()), timeBias)
    }

    private static func remember(_ value: Double, in values: inout [Double]) {
        if values.count == remembered { values.removeFirst() }
        values.append(value)
    }

    private static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
