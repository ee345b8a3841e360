import Glibc

/// A deceleration of the form dv/dt = -c v^p: p = 1 is exponential decay (UIKit,
/// GTK, Flutter), p = 0 constant braking (Qt's OutQuad), and values between bend
/// like Android's spline (its distance grows as v0^1.74, as p = 0.26 would). Given
/// p, the curve is a straight line in a transform of the speed (log v at p = 1,
/// v^(1-p) otherwise), so one least-squares line through the samples fits it.
struct DecayCurve: Equatable {
    /// The exponents fitted side by side: the family's shape is learned by which of
    /// them predicts a session's flings best.
    static let exponents: [Double] = [1, 0.5, 0]

    let exponent: Double
    /// Rows per second at the last sample, on the fitted line.
    let speed: Double
    /// c in dv/dt = -c v^p.
    let rate: Double

    /// The transform of `speed` that is linear in time for `exponent`.
    static func transform(_ speed: Double, exponent: Double) -> Double {
        exponent == 1 ? log(speed) : pow(speed, 1 - exponent)
    }

    /// Fits the curve of `exponent` through `count` samples, the `transformed`
    /// speeds against `times` (seconds); nil when the samples show no decay.
    static func fit(exponent: Double, count: Int, times: (Int) -> Double, transformed: (Int) -> Double) -> DecayCurve? {
        guard count >= 3 else { return nil }
        let n = Double(count)
        var meanT = 0.0, meanY = 0.0
        for i in 0..<count {
            meanT += times(i)
            meanY += transformed(i)
        }
        meanT /= n
        meanY /= n
        var sty = 0.0, stt = 0.0
        for i in 0..<count {
            let dt = times(i) - meanT
            sty += dt * (transformed(i) - meanY)
            stt += dt * dt
        }
        guard stt > 0 else { return nil }
        let slope = sty / stt
        let last = meanY + slope * (times(count - 1) - meanT)
        let q = 1 - exponent
        guard slope < 0 else { return nil }
        let speed = exponent == 1 ? exp(last) : (last > 0 ? pow(last, 1 / q) : 0)
        let rate = exponent == 1 ? -slope : -slope / q
        guard speed.isFinite, rate.isFinite, speed > 0, rate > 1e-6 else { return nil }
        return DecayCurve(exponent: exponent, speed: speed, rate: rate)
    }

    /// Rows travelled until the speed falls to `stopSpeed`.
    func distance(toSpeed stopSpeed: Double) -> Double {
        guard speed > stopSpeed else { return 0 }
        let k = 2 - exponent
        return (pow(speed, k) - pow(max(0, stopSpeed), k)) / (k * rate)
    }

    /// Seconds until the speed falls to `target`.
    func seconds(toSpeed target: Double) -> Double {
        guard speed > target else { return 0 }
        if exponent == 1 { return log(speed / max(target, 1e-3)) / rate }
        let q = 1 - exponent
        return (pow(speed, q) - pow(max(0, target), q)) / (q * rate)
    }
}
