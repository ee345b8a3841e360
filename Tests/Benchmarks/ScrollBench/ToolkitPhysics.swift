import Glibc

/// The toolkits whose fling curves the generated sessions use (see docs/pending/
/// landing-estimate.md for the sources each curve is written from).
public enum ToolkitFamily: String, CaseIterable, Sendable {
    /// Android `OverScroller`'s spline fling: a duration and a distance from the
    /// release speed, and a cubic spline between them that slows to zero.
    case android
    /// GTK 4's kinetic scrolling: v = v0 e^(-4t), ends below 1 px/s or 1 px a frame.
    case gtk
    /// Qt `QScroller` with its OutQuad curve: constant deceleration to zero.
    case qt
    /// Flutter's `FrictionSimulation` with drag 0.135 (v = v0 0.135^t), as its
    /// bouncing physics uses it: a long exponential tail to a speed tolerance.
    case flutter
    /// UIKit `decelerationRate` `.normal` (0.998 a ms) and `.fast` (0.99 a ms),
    /// snapping to rest below a minimum speed; repeated flings accelerate.
    case uikitNormal = "uikit-normal"
    case uikitFast = "uikit-fast"
    /// UIKit `.normal` flung very fast (50-80 screens/s), snapping to rest at
    /// about 3 screens/s.
    case uikitSnap = "uikit-snap"
    /// Chromium's touch fling curve (Chrome, Electron): an exponential decay with a
    /// constant deceleration beside it, p(t) = a e^(-ct) - bt - a with a = -5707.62,
    /// b = 172, c = 3.7 in DIPs (its renderer preferences' defaults), from the
    /// curve's time of the release speed to the time its speed reaches zero. A
    /// shape no other family has, and held out of every fit: no constant was ever
    /// chosen with it in sight. Last, so the other families draw as they did.
    case chromium

    /// The families of realistic speeds; `uikitSnap` is the very fast kind.
    public static let toolkits: [ToolkitFamily] = [.android, .gtk, .qt, .flutter, .uikitNormal, .uikitFast, .chromium]
}

/// One list's fling physics: a family with the parameters a device and an app give
/// it, drawn from a seed. Speeds and distances in pixels here; `glide` converts to
/// rows with the list's row height.
public struct ToolkitPhysics: Sendable {
    public let family: ToolkitFamily
    public let rowPixels: Double
    public let screenPixels: Double
    /// Android: display density (dp to px); Qt: pixels per metre; Flutter and
    /// Chromium: device pixels per logical pixel; UIKit: the minimum speed, px/s.
    private let deviceScale: Double
    /// Qt: the deceleration factor (0.125 by default; apps raise it).
    private let qtDeceleration: Double
    /// Qt: the fastest flick it accepts, px/s.
    private let qtMaximumSpeed: Double

    static var dt: Double { 1 / ScrollTrace.framesPerSecond }

    init(family: ToolkitFamily, rowPixels: Double, screenPixels: Double, random: inout SeededRandom) {
        self.family = family
        self.rowPixels = rowPixels
        self.screenPixels = screenPixels
        switch family {
        case .android: deviceScale = [2.0, 2.625, 3.0][random.next(below: 3)]
        case .qt: deviceScale = random.uniform(96...160) / 0.0254
        case .flutter: deviceScale = random.uniform(2...3)
        case .chromium: deviceScale = random.uniform(1...3)
        case .uikitSnap: deviceScale = random.uniform(2.5...3.5) * screenPixels
        default: deviceScale = random.uniform(10...40)
        }
        qtDeceleration = random.uniform(0.125...0.3)
        qtMaximumSpeed = random.uniform(0.5...1.5) * (family == .qt ? deviceScale : 1)
    }

    /// A release speed as people fling this list, px/s.
    func releaseSpeed(_ random: inout SeededRandom) -> Double {
        switch family {
        case .uikitSnap: random.uniform(50...80) * screenPixels
        case .qt: min(qtMaximumSpeed, random.logUniform(300...10_000))
        default: random.logUniform(300...10_000)
        }
    }

    /// The speed of a fling released at `release` while the list still glides at
    /// `current` the same way: UIKit adds the two, QScroller speeds the glide up by
    /// its acceleratingFlickSpeedupFactor (1.2); the others start from the release.
    func repeatedFling(release: Double, current: Double) -> Double {
        guard release * current > 0 else { return release }
        switch family {
        // Chromium's fling booster adds a new fling's speed to a glide the same way.
        case .uikitNormal, .uikitFast, .uikitSnap, .chromium: return release + current
        case .qt: return copysign(min(qtMaximumSpeed, max(abs(release), abs(current) * 1.2)), release)
        default: return release
        }
    }

    /// Each frame of a glide released at `velocity` px/s: the distance from
    /// the release, px, and the speed the toolkit reports, up to its last moving frame.
    func glidePixels(velocity: Double) -> [(offset: Double, velocity: Double)] {
        let sign = velocity < 0 ? -1.0 : 1.0
        let v0 = abs(velocity)
        var steps: [(offset: Double, velocity: Double)] = []
        var t = Self.dt
        switch family {
        case .android:
            // Spline fling: the curve's time and distance from the release speed.
            let inflexion = 0.35, friction = 0.015
            let decelerationRate = log(0.78) / log(0.9)
            let coefficient = 9.80665 * 39.37 * 160 * deviceScale * 0.84
            let l = log(inflexion * v0 / (friction * coefficient))
            let duration = exp(l / (decelerationRate - 1))
            let distance = friction * coefficient * exp(decelerationRate / (decelerationRate - 1) * l)
            while t < duration {
                let (fraction, slope) = Self.androidSpline(t / duration)
                steps.append((sign * distance * fraction, sign * distance / duration * slope))
                t += Self.dt
            }
        case .gtk:
            var last = 0.0
            while true {
                let speed = v0 * exp(-4 * t)
                let offset = v0 / 4 * (1 - exp(-4 * t))
                if speed < 1 || offset - last < 1 { break }
                steps.append((sign * offset, sign * speed))
                last = offset
                t += Self.dt
            }
        case .qt:
            let metresPerSecond = min(v0, qtMaximumSpeed) / deviceScale
            let duration = metresPerSecond / qtDeceleration
            let distance = duration * duration * 0.5 * qtDeceleration * deviceScale
            while t < duration {
                let u = t / duration
                steps.append((sign * distance * (1 - (1 - u) * (1 - u)), sign * v0 * (1 - u)))
                t += Self.dt
            }
        case .flutter:
            let drag = 0.135, start = v0 * 0.91
            let tolerance = 1 / (0.05 * deviceScale)
            while start * pow(drag, t) >= tolerance {
                steps.append((sign * start * (pow(drag, t) - 1) / log(drag), sign * start * pow(drag, t)))
                t += Self.dt
            }
        case .chromium:
            let (a, b, c) = (-5707.62, 172.0, 3.7)
            // In DIPs: the curve's fastest is its speed at time 0.
            let speed = { (t: Double) in -a * c * exp(-c * t) - b }
            let position = { (t: Double) in a * exp(-c * t) - b * t - a }
            let timeAtSpeed = { (v: Double) in -log((v + b) / (-a * c)) / c }
            let start = timeAtSpeed(min(v0 / deviceScale, speed(0))), end = timeAtSpeed(0)
            while start + t < end {
                steps.append((sign * deviceScale * (position(start + t) - position(start)),
                              sign * deviceScale * speed(start + t)))
                t += Self.dt
            }
        case .uikitNormal, .uikitFast, .uikitSnap:
            let rate = family == .uikitFast ? 0.99 : 0.998
            let factor = pow(rate, 1000 * Self.dt)
            var speed = v0, offset = 0.0
            while true {
                speed *= factor
                if speed < deviceScale { break }
                offset += speed * Self.dt
                steps.append((sign * offset, sign * speed))
            }
        }
        return steps
    }

    /// Android's fling spline at time fraction `u`: the distance fraction and its
    /// slope (d distance / d time, both as fractions). A cubic Bezier in time with
    /// control points 0, 0.175, 0.35, 1 and in distance 0, 0.5, 1, 1 (its
    /// INFLEXION 0.35 and tensions 0.5 and 1), solved for the curve parameter.
    public static func androidSpline(_ u: Double) -> (fraction: Double, slope: Double) {
        func bezier(_ s: Double, _ p1: Double, _ p2: Double) -> Double {
            3 * s * (1 - s) * ((1 - s) * p1 + s * p2) + s * s * s
        }
        func derivative(_ s: Double, _ p1: Double, _ p2: Double) -> Double {
            3 * (1 - s) * (1 - s) * p1 + 6 * s * (1 - s) * (p2 - p1) + 3 * s * s * (1 - p2)
        }
        var low = 0.0, high = 1.0, s = 0.5
        for _ in 0..<40 {
            s = (low + high) / 2
            if bezier(s, 0.175, 0.35) > u { high = s } else { low = s }
        }
        return (bezier(s, 0.5, 1), derivative(s, 0.5, 1) / max(1e-9, derivative(s, 0.175, 0.35)))
    }
}

extension ToolkitPhysics: GlidePhysics {
    public func glide(from position: Double, velocity: Double,
                      within bounds: ClosedRange<Double>) -> [(position: Double, velocity: Double)] {
        var steps: [(position: Double, velocity: Double)] = []
        for step in glidePixels(velocity: velocity * rowPixels) {
            let next = position + step.offset / rowPixels
            if !bounds.contains(next) {
                steps.append((min(max(next, bounds.lowerBound), bounds.upperBound), step.velocity / rowPixels))
                break
            }
            steps.append((next, step.velocity / rowPixels))
        }
        return steps
    }
}
