import Glibc

/// The speeds a list reported while decelerating, and where they say it stops.
///
/// Toolkits decay differently: UIKit and Android multiply the speed by a constant
/// per frame (exponential), others brake at a constant rate (linear), and UIKit also
/// stops outright below a minimum speed. So both models are fitted by least squares
/// (the exponential one as a straight line through log speed against time) and the
/// one that explains the samples better is used; the speed at which earlier
/// decelerations stopped is learned and ends the curve, rather than assuming zero.
struct DecelerationFit {
    struct Sample {
        /// Seconds, from the loader's clock.
        let time: Double
        /// Rows per second, without sign.
        let speed: Double
    }

    /// What the fit expects from now on.
    struct Remainder: Equatable {
        /// Rows travelled until the list stops.
        let rows: Double
        /// Seconds until the speed falls to the speed asked about.
        let seconds: Double
        /// The fitted curve from the last sample on, to time a distance known from
        /// elsewhere (the host's target).
        let curve: Curve

        enum Curve: Equatable {
            /// v(t) = speed e^(-rate t)
            case exponential(speed: Double, rate: Double)
            /// v(t) = speed - braking t
            case linear(speed: Double, braking: Double)
        }

        /// Seconds until the list has travelled `distance` rows on the fitted curve;
        /// infinity when the curve runs out before (the list stops short of it, or
        /// stops at a minimum speed the fit cannot see: then `seconds` decides).
        func secondsToTravel(_ distance: Double) -> Double {
            guard distance > 0 else { return 0 }
            switch curve {
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
    }

    /// Enough for a stable fit over the last ~quarter second at 60 Hz; older samples
    /// describe a speed the list no longer has.
    static let capacity = 16

    /// Slopes closer to zero are rounding noise of a steady speed, not a decay.
    static let minimumDecay = 1e-3

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
        if samples.count == Self.capacity { samples.removeFirst() }
        samples.append(Sample(time: Double(milliseconds) / 1000, speed: speed))
    }

    /// The rows left until the speed falls to `stopSpeed` (where the list stops),
    /// and the seconds until it falls to `dueSpeed`; nil while the samples do not
    /// show a decay (fewer than three, all at one instant, or not slowing down).
    func remainder(stopSpeed: Double, dueSpeed: Double) -> Remainder? {
        guard samples.count >= 3, let last = samples.last, let first = samples.first, last.time > first.time
        else { return nil }
        var best: (error: Double, remainder: Remainder)?
        if let fit = Self.line(samples.map { ($0.time, log($0.speed)) }), fit.slope < -Self.minimumDecay {
            // v(t) = v e^(-kt): distance (v - stop) / k, time ln(v / due) / k.
            let k = -fit.slope
            let error = samples.reduce(0) { $0 + pow($1.speed - exp(fit.value(at: $1.time)), 2) }
            let v = exp(fit.value(at: last.time))
            best = (error, Remainder(rows: max(0, v - stopSpeed) / k,
                                     seconds: v <= dueSpeed ? 0 : log(v / max(dueSpeed, 0.01)) / k,
                                     curve: .exponential(speed: v, rate: k)))
        }
        if let fit = Self.line(samples.map { ($0.time, $0.speed) }), fit.slope < -Self.minimumDecay {
            // v(t) = v - at: distance (v^2 - stop^2) / 2a, time (v - due) / a.
            let a = -fit.slope
            let error = samples.reduce(0) { $0 + pow($1.speed - fit.value(at: $1.time), 2) }
            let v = fit.value(at: last.time)
            let remainder = Remainder(rows: max(0, v * v - stopSpeed * stopSpeed) / (2 * a),
                                      seconds: max(0, v - dueSpeed) / a, curve: .linear(speed: v, braking: a))
            if (best.map { error < $0.error }) ?? true { best = (error, remainder) }
        }
        guard let remainder = best?.remainder, remainder.rows.isFinite, remainder.seconds.isFinite else { return nil }
        return remainder
    }

    private struct Line {
        let slope: Double
        let intercept: Double
        func value(at x: Double) -> Double { intercept + slope * x }
    }

    /// Least-squares line through `points`; nil when every x is the same.
    private static func line(_ points: [(x: Double, y: Double)]) -> Line? {
        let n = Double(points.count)
        // Centre x on its mean: times in seconds since boot square to large numbers.
        let meanX = points.reduce(0) { $0 + $1.x } / n
        let meanY = points.reduce(0) { $0 + $1.y } / n
        var sxy = 0.0, sxx = 0.0
        for p in points {
            sxy += (p.x - meanX) * (p.y - meanY)
            sxx += (p.x - meanX) * (p.x - meanX)
        }
        guard sxx > 0 else { return nil }
        let slope = sxy / sxx
        return Line(slope: slope, intercept: meanY - slope * meanX)
    }
}
