#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_2 // ThreadSanitizer group 2 (see the Makefile's tsan)
import Glibc
import XCTest
@testable import LazyImgCore

/// The landing estimate on each toolkit's physics, fed as ViewState feeds it: a
/// speed per 60 Hz frame timed by a fake clock a little off the frame's tick, the
/// top row after it, and how the fling ended. The first fling of a session has
/// nothing learned; later ones must land tighter; a caught fling teaches nothing.
final class LandingEstimateTests: XCTestCase {
    /// A toolkit's deceleration: the speed (rows/s) `t` seconds after a release at
    /// `v0`, and the speed under which it stops.
    private struct Physics: Sendable {
        let name: String
        let speed: @Sendable (_ v0: Double, _ t: Double) -> Double
        let stopSpeed: Double
    }

    private static let screen = 10

    /// One fling from row `from` released at `v0`: what the estimate asked for
    /// before the list came to rest, and where it rested. `catchBelow`: a touch once
    /// the speed falls under this (the estimate is told the fling was abandoned).
    private struct Flight {
        var started = Set<Int>()
        var rest = 0
        /// Seconds from the first due landing to the rest, or to slowing under a
        /// screen a second if earlier (nil: never due).
        var lead: Double?
        /// Rows asked for at the first due landing.
        var firstZone: Range<Int>?
    }

    /// `hz`: the display's rate; the host's calls are timed to the millisecond, as
    /// ViewState times them.
    private func fly(_ physics: Physics, v0: Double, from: Double, clock: inout Double,
                     _ estimate: inout LandingEstimate, catchBelow: Double? = nil, hz: Double = 60) -> Flight {
        var flight = Flight()
        var position = from, t = 0.0, frame = 0
        var dueAt: Double?, slowAt: Double?
        while true {
            let v = physics.speed(v0, t)
            if v < Double(Self.screen) && slowAt == nil { slowAt = t }
            if v < physics.stopSpeed { break }
            if let catchBelow, v < catchBelow {
                estimate.abandon()
                flight.rest = Int(position)
                return flight
            }
            // The host's call comes up to 3 ms after the frame's tick.
            estimate.add(seconds: ((clock + t) * 1000).rounded() / 1000 + Double(frame % 4) * 0.001, speed: v)
            if let landing = estimate.landing(top: Int(position), screen: Self.screen, forward: true,
                                              slowSpeed: Double(Self.screen), leadSeconds: 0.5) {
                if dueAt == nil {
                    dueAt = t
                    flight.firstZone = landing.rows
                }
                flight.started.formUnion(landing.rows)
            }
            frame += 1
            t = Double(frame) / hz
            position += physics.speed(v0, t - 0.5 / hz) / hz
        }
        estimate.finish(seconds: clock + t)
        clock += t + 1
        flight.rest = Int(position)
        flight.lead = dueAt.map { (slowAt ?? t) - $0 }
        return flight
    }

    /// The rows on screen where the list rests (one more when a row is cut).
    private func restRows(_ flight: Flight) -> Range<Int> { flight.rest..<flight.rest + Self.screen }

    /// Rows started past the far end of the rest (rows before it, the list shows
    /// on its way).
    private func beyond(_ flight: Flight) -> Int { flight.started.filter { $0 >= flight.rest + Self.screen }.count }

    /// A session on `physics`: a first fling with nothing learned must start some
    /// of its resting rows before it rests (unless `firstLands` is false: a list
    /// that snaps to rest fast may stop before a first fling's landing is due), and
    /// a bounded zone; after three flings,
    /// a fourth starts every resting row and at most `learnedExtra` rows past them,
    /// due between 0.25 and 1.5 s before the rest (or the slow speed); a caught
    /// fling in between teaches nothing.
    private func checkSession(_ physics: Physics, speeds: [Double] = [300, 220, 380, 260], learnedExtra: Int = 4,
                              firstLands: Bool = true, hz: Double = 60, file: StaticString = #filePath,
                              line: UInt = #line) {
        let physics = Physics(name: "\(physics.name) at \(Int(hz)) Hz", speed: physics.speed, stopSpeed: physics.stopSpeed)
        var estimate = LandingEstimate()
        var clock = 1_000.0
        let first = fly(physics, v0: speeds[0], from: 0, clock: &clock, &estimate, hz: hz)
        XCTAssertEqual(estimate.flingsLearned, 1, "\(physics.name): a fling that ran its course is learned", file: file, line: line)
        XCTAssertGreaterThanOrEqual(Set(restRows(first)).intersection(first.started).count, firstLands ? 3 : 0,
                                    "\(physics.name), first fling: rest \(restRows(first)) in \(first.started.sorted())",
                                    file: file, line: line)
        XCTAssertLessThanOrEqual(beyond(first), Self.screen, "\(physics.name), first fling: a bounded zone",
                                 file: file, line: line)

        // A wrong prediction: caught after its landing was due; nothing is learned,
        // and the next fling starts from no rows of it.
        let caught = fly(physics, v0: speeds[1], from: 2_000, clock: &clock, &estimate,
                         catchBelow: max(2.5 * Double(Self.screen), 1.6 * physics.stopSpeed), hz: hz)
        XCTAssertFalse(caught.started.isEmpty, "\(physics.name): caught after its landing was due", file: file, line: line)
        XCTAssertEqual(estimate.flingsLearned, 1, "\(physics.name): a caught fling teaches nothing", file: file, line: line)

        _ = fly(physics, v0: speeds[1], from: 4_000, clock: &clock, &estimate, hz: hz)
        _ = fly(physics, v0: speeds[2], from: 6_000, clock: &clock, &estimate, hz: hz)
        let learned = fly(physics, v0: speeds[3], from: 8_000, clock: &clock, &estimate, hz: hz)
        XCTAssertEqual(estimate.flingsLearned, 4, file: file, line: line)
        XCTAssertTrue(Set(restRows(learned)).isSubset(of: learned.started),
                      "\(physics.name), learned: rest \(restRows(learned)) not all in \(learned.started.sorted())",
                      file: file, line: line)
        XCTAssertLessThanOrEqual(beyond(learned), learnedExtra,
                                 "\(physics.name), learned: \(learned.started.sorted()) for rest \(restRows(learned))",
                                 file: file, line: line)
        let lead = learned.lead ?? 0
        XCTAssertGreaterThanOrEqual(lead, 0.25, "\(physics.name): due early enough to load", file: file, line: line)
        XCTAssertLessThanOrEqual(lead, 1.5, "\(physics.name): not while the fling may still be caught", file: file, line: line)
    }

    /// A host whose velocities waver by 3% (smoothed over few touch points): once
    /// due, the landing stays due to the end of the fling, and rows it asked for
    /// that the list has yet to pass stay asked for (a zone edge that wavers would
    /// otherwise cancel and restart their downloads).
    func testAWaveringEstimateKeepsItsLandingAndTheRowsAhead() {
        var estimate = LandingEstimate()
        var clock = 0.0
        let noisy = Physics(name: "noisy", speed: { v0, t in v0 * exp(-2 * t) }, stopSpeed: 5)
        for (index, v0) in [300.0, 250, 350].enumerated() {
            _ = fly(noisy, v0: v0, from: Double(index) * 1_000, clock: &clock, &estimate)
        }
        var position = 5_000.0, previous: LandingEstimate.Landing?
        for frame in 0..<200 {
            let t = Double(frame) / 60
            let v = 300 * exp(-2 * t) * (1 + 0.03 * sin(Double(frame) * 2.3))
            guard v >= 5 else { break }
            estimate.add(seconds: clock + t, speed: v)
            position += v / 60
            let top = Int(position)
            let landing = estimate.landing(top: top, screen: Self.screen, forward: true, slowSpeed: Double(Self.screen),
                                           leadSeconds: 0.5)
            if let previous {
                let zone = try? XCTUnwrap(landing, "frame \(frame): due once, due to the end")
                for row in previous.rows where row >= top {
                    XCTAssertTrue(zone?.rows.contains(row) ?? false || row >= (zone?.rows.upperBound ?? 0),
                                  "frame \(frame): row \(row) ahead of the list left the zone \(String(describing: zone))")
                }
            }
            if landing != nil { previous = landing }
        }
        XCTAssertNotNil(previous, "the landing came due")
    }

    private static let uikitNormal = Physics(name: "UIKit .normal", speed: { v0, t in v0 * pow(0.998, 1000 * t) },
                                             stopSpeed: 30)
    private static let uikitFast = Physics(name: "UIKit .fast", speed: { v0, t in v0 * pow(0.99, 1000 * t) }, stopSpeed: 2)
    /// Friction 4; rows of 60 px stop below 1 px a frame: 1 row/s.
    private static let gtk = Physics(name: "GTK", speed: { v0, t in v0 * exp(-4 * t) }, stopSpeed: 1)
    private static let qt = Physics(name: "Qt OutQuad", speed: { v0, t in v0 - 200 * t }, stopSpeed: 0.5)
    private static let flutter = Physics(name: "Flutter", speed: { v0, t in 0.91 * v0 * pow(0.135, t) }, stopSpeed: 0.1)
    /// OverScroller's spline: duration and distance from the release speed (rows of
    /// 100 px at density 2.625), the cubic spline between.
    private static let android = Physics(name: "Android spline", speed: { v0, t in
        let px = v0 * 100
        let coefficient = 9.80665 * 39.37 * 160 * 2.625 * 0.84
        let rate = log(0.78) / log(0.9)
        let l = log(0.35 * px / (0.015 * coefficient))
        let duration = exp(l / (rate - 1))
        let distance = 0.015 * coefficient * exp(rate / (rate - 1) * l) / 100
        guard t < duration else { return 0 }
        var low = 0.0, high = 1.0
        for _ in 0..<40 {
            let s = (low + high) / 2
            if 3 * s * (1 - s) * ((1 - s) * 0.175 + s * 0.35) + s * s * s > t / duration { high = s } else { low = s }
        }
        let s = low
        let dy = 3 * (1 - s) * (1 - s) * 0.5 + 6 * s * (1 - s) * 0.5
        let dx = 3 * (1 - s) * (1 - s) * 0.175 + 6 * s * (1 - s) * 0.175 + 3 * s * s * 0.65
        return distance / duration * dy / dx
    }, stopSpeed: 0.5)

    func testUIKitNormalSnappingAtThreeScreensASecond() {
        // Its first fling snaps to rest before a stop that fast is likely enough
        // to start on (starting for it would start every fling's rows a second
        // early); one learned fling is enough to land the next.
        checkSession(Self.uikitNormal, speeds: [600, 500, 750, 650], firstLands: false)
    }

    func testUIKitFast() {
        checkSession(Self.uikitFast, speeds: [400, 300, 500, 350])
    }

    func testGTKKineticFriction() {
        checkSession(Self.gtk)
    }

    func testQtOutQuadBrakesAtAConstantRate() {
        checkSession(Self.qt, speeds: [200, 160, 240, 180])
    }

    func testFlutterFrictionsLongTail() {
        checkSession(Self.flutter)
    }

    func testAndroidSplineFling() {
        checkSession(Self.android, speeds: [150, 110, 190, 130])
    }

    /// The same sessions from hosts at other rates: a 30 Hz terminal UI, 120 and
    /// 144 Hz displays, 240 Hz. The fits span a quarter second and a landing waits
    /// for 30 ms of samples whatever the rate, so each lands as at 60 Hz.
    func testSessionsLandAlikeAtEveryDisplayRate() {
        for hz in [30.0, 120, 144, 240] {
            checkSession(Self.uikitFast, speeds: [400, 300, 500, 350], hz: hz)
            checkSession(Self.gtk, hz: hz)
            checkSession(Self.qt, speeds: [200, 160, 240, 180], hz: hz)
            checkSession(Self.flutter, hz: hz)
            checkSession(Self.android, speeds: [150, 110, 190, 130], hz: hz)
        }
    }

    /// A session of GTK flings that taught the estimate its physics, then a slow
    /// fling whose rest is within the lead from its first sample: how many of the
    /// new fling's samples, at `hz`, come before its first landing.
    private func samplesBeforeTheFirstLanding(hz: Double) -> (count: Int, seconds: Double) {
        var estimate = LandingEstimate()
        var clock = 0.0
        for (index, v0) in [300.0, 250, 350].enumerated() {
            _ = fly(Self.gtk, v0: v0, from: Double(index) * 1_000, clock: &clock, &estimate, hz: hz)
        }
        for frame in 0..<Int(hz) {
            let t = Double(frame) / hz
            estimate.add(seconds: clock + t, speed: 12 * exp(-4 * t))
            if estimate.landing(top: 5_000, screen: Self.screen, forward: true, slowSpeed: Double(Self.screen),
                                leadSeconds: 0.5) != nil {
                return (frame + 1, t)
            }
        }
        return (.max, .infinity)
    }

    func testNoLandingBeforeTheFlingsSamplesSpanThreeFramesAt60Hz() {
        XCTAssertEqual(samplesBeforeTheFirstLanding(hz: 60).count, 3, "three samples, 33 ms")
        let fast = samplesBeforeTheFirstLanding(hz: 240)
        XCTAssertGreaterThanOrEqual(fast.seconds, 0.03,
                                    "240 Hz: not on the first 14 ms (\(fast.count) samples)")
        XCTAssertLessThan(fast.seconds, 0.05, "but due as soon as the samples span as much")
    }

    /// The wavering host of `testAWaveringEstimateKeepsItsLandingAndTheRowsAhead`
    /// at `hz`: how many times a row the landing asked for left it and came back
    /// (each a download cancelled and started again).
    private func rowsAskedAgain(hz: Double) -> Int {
        var estimate = LandingEstimate()
        var clock = 0.0
        let gtk = Physics(name: "GTK", speed: { v0, t in v0 * exp(-2 * t) }, stopSpeed: 5)
        for (index, v0) in [300.0, 250, 350].enumerated() {
            _ = fly(gtk, v0: v0, from: Double(index) * 1_000, clock: &clock, &estimate, hz: hz)
        }
        var position = 5_000.0, asked = Set<Int>(), left = Set<Int>(), again = 0
        for frame in 0..<Int(4 * hz) {
            let t = Double(frame) / hz
            // Velocities waver by 3%, 2.3 radians a 60 Hz frame apart.
            let v = 300 * exp(-2 * t) * (1 + 0.03 * sin(t * 60 * 2.3))
            guard v >= 5 else { break }
            estimate.add(seconds: ((clock + t) * 1000).rounded() / 1000, speed: v)
            position += v / hz
            let rows = estimate.landing(top: Int(position), screen: Self.screen, forward: true,
                                        slowSpeed: Double(Self.screen), leadSeconds: 0.5)?.rows ?? 0..<0
            again += left.intersection(rows).count
            left.subtract(rows)
            left.formUnion(asked.subtracting(rows).filter { $0 >= Int(position) })
            asked.formUnion(rows)
        }
        XCTAssertFalse(asked.isEmpty, "\(hz) Hz: the landing came due")
        return again
    }

    func testAZoneEdgeThatWaversIsNotAskedForAgainAtAnyRate() {
        for hz in [60.0, 144] {
            XCTAssertEqual(rowsAskedAgain(hz: hz), 0, "\(hz) Hz")
        }
    }
}
#endif
