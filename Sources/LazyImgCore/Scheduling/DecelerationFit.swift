import Glibc

/// The speeds a list reported while decelerating, and where they say it stops.
///
/// Toolkits decay differently: UIKit and Android multiply the speed by a constant
/// per frame (exponential), others brake at a constant rate (linear), and UIKit also
/// stops outright below a minimum speed. So both models are fitted by least squares
/// (the exponential one as a straight line through log speed against time) and the
/// exponential one is used unless the linear one explains the samples decisively
/// better; the speed at which earlier
/// decelerations stopped is learned and ends the curve, rather than assuming zero.
struct DecelerationFit {
    struct Sample {
        /// Seconds, from the loader's clock.
        let time: Double
        /// Rows per second, without sign.
        let speed: Double
        /// Its logarithm, taken once here: every frame of a deceleration fits all the
        /// samples again, on the host thread.
        let logSpeed: Double
    }

    /// What the fit expects from now on.
    struct Remainder: Equatable {
        /// Rows travelled until the list stops.
        let rows: Double
        /// Seconds until the speed falls to the speed asked about.
        let seconds: Double
        /// The fitted curve from the last sample on, and the other model's fit when it
        /// also shows a decay: to time a distance known from elsewhere (the host's
        /// target), where neither may be trusted alone (see `secondsToRest`).
        let curve: Curve
        let other: Curve?

        enum Curve: Equatable {
            /// v(t) = speed e^(-rate t)
            case exponential(speed: Double, rate: Double)
            /// v(t) = speed - braking t
            case linear(speed: Double, braking: Double)

            /// Seconds until the list has travelled `distance` rows on this curve;
            /// infinity when the curve runs out before.
            func secondsToTravel(_ distance: Double) -> Double {
                guard distance > 0 else { return 0 }
                switch self {
                case .exponential(let v, let k):
                    // distance(t) = v (1 - e^(-kt)) / k
                    let fraction = k * distance / v
                    return fraction < 1 ? -log(1 - fraction) / k : .infinity
                case .linear(let v, let a):
                    // distance(t) = vt - at^2 / 2
                    guard v > 0 else { return .infinity }
                    let discriminant = v * v - 2 * a * distance
                    return discriminant >= 0 ? (v - discriminant.squareRoot()) / a : .infinity
                }
            }

            /// Seconds until the speed falls to `speed`.
            func secondsToSlow(to speed: Double) -> Double {
                switch self {
                case .exponential(let v, let k): return v <= speed ? 0 : log(v / max(speed, 0.01)) / k
                case .linear(let v, let a): return max(0, v - speed) / a
                }
            }
        }

        /// Seconds until the list has travelled `distance` rows or slowed to
        /// `dueSpeed`, whichever comes first, by the later of the two curves. With
        /// the distance known, the wrong model is the early one either way (a line
        /// through an exponential decay stops too soon; an exponential through
        /// constant braking covers the distance in ln 2 of the true time), and over
        /// the first frames the timing jitter of the host's calls can make either
        /// fit better: so the later answer is the right one's.
        func secondsToRest(travelling distance: Double, orSlowingTo dueSpeed: Double) -> Double {
            let mine = min(curve.secondsToTravel(distance), curve.secondsToSlow(to: dueSpeed))
            guard let other else { return mine }
            return max(mine, min(other.secondsToTravel(distance), other.secondsToSlow(to: dueSpeed)))
        }
    }

    /// The samples of the last quarter second are fitted, whatever the host's frame
    /// rate (16 at 60 Hz, as `LandingEstimate.windowSeconds`); older samples
    /// describe a speed the list no longer has...
    static let windowSeconds = LandingEstimate.windowSeconds
    /// ...at most this many (a quarter second at 240 Hz), and at least 3.
    static let capacity = LandingEstimate.maxWindow

    /// Slopes closer to zero are rounding noise of a steady speed, not a decay.
    static let minimumDecay = 1e-3

    /// The linear fit replaces the exponential one only when its squared error is
    /// under this fraction of the exponential's. Over the first frames of a fling the
    /// two curves differ by less than the jitter in the times of the host's calls, so
    /// the smaller error is a coin toss; and a linear curve wrongly chosen stops the
    /// list far too soon (v/a instead of never), which starts a landing zone a second
    /// early. The exponential is what UIKit and Android do; a list that truly brakes
    /// at a constant rate shows it clearly within a few more frames.
    static let linearPreference = 0.5

    private(set) var samples: [Sample] = []

    /// Seconds between the first and the last sample.
    var span: Double {
        guard let first = samples.first, let last = samples.last else { return 0 }
        return last.time - first.time
    }

    mutating func reset() {
        samples.removeAll(keepingCapacity: true)
    }

    mutating func add(milliseconds: Int64, speed: Double) {
        guard speed.isFinite, speed > 0 else { return }
        let time = Double(milliseconds) / 1000
        while let first = samples.first,
              samples.count >= Self.capacity || (samples.count > 2 && time - first.time > Self.windowSeconds) {
            samples.removeFirst()
        }
        samples.append(Sample(time: time, speed: speed, logSpeed: log(speed)))
    }

    /// The rows left until the speed falls to `stopSpeed` (where the list stops),
    /// and the seconds until it falls to `dueSpeed`; nil while the samples do not
    /// show a decay (fewer than three, all at one instant, or not slowing down).
    func remainder(stopSpeed: Double, dueSpeed: Double) -> Remainder? {
        guard samples.count >= 3, let last = samples.last, let first = samples.first, last.time > first.time
        else { return nil }
        var exponential: (error: Double, curve: Remainder.Curve)?
        var linear: (error: Double, curve: Remainder.Curve)?
        if let fit = Self.line(through: samples, \.logSpeed), fit.slope < -Self.minimumDecay {
            let error = samples.reduce(0) { $0 + pow($1.speed - exp(fit.value(at: $1.time)), 2) }
            exponential = (error, .exponential(speed: exp(fit.value(at: last.time)), rate: -fit.slope))
        }
        if let fit = Self.line(through: samples, \.speed), fit.slope < -Self.minimumDecay {
            let error = samples.reduce(0) { $0 + pow($1.speed - fit.value(at: $1.time), 2) }
            linear = (error, .linear(speed: fit.value(at: last.time), braking: -fit.slope))
        }
        let chosen: Remainder.Curve, other: Remainder.Curve?
        switch (exponential, linear) {
        case let (e?, l?) where l.error < e.error * Self.linearPreference: (chosen, other) = (l.curve, e.curve)
        case let (e?, l): (chosen, other) = (e.curve, l?.curve)
        case let (nil, l?): (chosen, other) = (l.curve, nil)
        case (nil, nil): return nil
        }
        let rows: Double
        switch chosen {
        case .exponential(let v, let k): rows = max(0, v - stopSpeed) / k  // v(t) = v e^(-kt)
        case .linear(let v, let a): rows = max(0, v * v - stopSpeed * stopSpeed) / (2 * a)  // v(t) = v - at
        }
        let remainder = Remainder(rows: rows, seconds: chosen.secondsToSlow(to: dueSpeed), curve: chosen, other: other)
        guard remainder.rows.isFinite, remainder.seconds.isFinite else { return nil }
        return remainder
    }

    private struct Line {
        let slope: Double
        let intercept: Double
        func value(at x: Double) -> Double { intercept + slope * x }
    }

    /// Least-squares line of `y` against time through `samples`; nil when every time
    /// is the same. It reads the samples in place: this runs on the host thread at
    /// every decelerating frame, where an array per fit was a measurable part.
    private static func line(through samples: [Sample], _ y: (Sample) -> Double) -> Line? {
        let n = Double(samples.count)
        // Centre x on its mean: times in seconds since boot square to large numbers.
        var meanX = 0.0, meanY = 0.0
        for sample in samples {
            meanX += sample.time
            meanY += y(sample)
        }
        meanX /= n
        meanY /= n
        var sxy = 0.0, sxx = 0.0
        for sample in samples {
            sxy += (sample.time - meanX) * (y(sample) - meanY)
            sxx += (sample.time - meanX) * (sample.time - meanX)
        }
        guard sxx > 0 else { return nil }
        let slope = sxy / sxx
        return Line(slope: slope, intercept: meanY - slope * meanX)
    }
}
