#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_2 // ThreadSanitizer group 2 (see the Makefile's tsan)
import Glibc
import ScrollBench
import XCTest

/// The generated sessions follow their toolkits' curves, at realistic sizes and
/// speeds, and a family and seed always make the same trace.
final class FlingSessionsTests: XCTestCase {
    /// The glides of a trace: runs of decelerating frames one way, with their speeds.
    private func glides(_ trace: ScrollTrace) -> [[Double]] {
        var runs: [[Double]] = [], current: [Double] = []
        for frame in trace.frames {
            if frame.motion == .decelerating, current.isEmpty || (current.last! > 0) == (frame.velocity > 0) {
                current.append(frame.velocity)
            } else {
                if current.count >= 6 { runs.append(current.map(abs)) }
                current = frame.motion == .decelerating ? [frame.velocity] : []
            }
        }
        if current.count >= 6 { runs.append(current.map(abs)) }
        return runs
    }

    func testAFamilyAndSeedAlwaysMakeTheSameTrace() {
        for family in ToolkitFamily.allCases {
            let a = FlingSessions.trace(family, seed: 5), b = FlingSessions.trace(family, seed: 5)
            XCTAssertEqual(a.frames.map(\.position), b.frames.map(\.position), family.rawValue)
            XCTAssertEqual(a.name, "\(family.rawValue):5")
            XCTAssertNotEqual(a.frames.map(\.position), FlingSessions.trace(family, seed: 6).frames.map(\.position))
            XCTAssertEqual(ScrollTraces.named(a.name)?.frames.count, a.frames.count, "named on the command line")
        }
        XCTAssertNil(FlingSessions.parse("gtk:x"))
        XCTAssertNil(FlingSessions.parse("motif:1"))
    }

    func testSessionsHaveRealisticScreensAndEveryHabit() {
        for seed: UInt64 in [1, 2, 3, 101] {
            let trace = FlingSessions.trace(.uikitNormal, seed: seed)
            // 600-1,000 px screens of 40-300 px rows.
            XCTAssertTrue((2...25).contains(trace.visibleRows), "\(trace.visibleRows) rows on screen")
            XCTAssertGreaterThanOrEqual(trace.seconds, FlingSessions.defaultSeconds)
            let settles = trace.frames.indices.dropFirst().filter {
                trace.frames[$0].motion == .idle && trace.frames[$0 - 1].motion != .idle
            }
            XCTAssertGreaterThanOrEqual(settles.count, 3, "reading pauses between gestures")
        }
        // Over a few sessions: catches (DRAGGING straight after DECELERATING) and a
        // fling right after a fling (DECELERATING, a short drag, DECELERATING faster).
        var catches = 0
        for seed: UInt64 in 1...6 {
            let frames = FlingSessions.trace(.gtk, seed: seed).frames
            catches += frames.indices.dropFirst().filter { frames[$0].motion == .dragging && frames[$0 - 1].motion == .decelerating }.count
        }
        XCTAssertGreaterThan(catches, 3)
    }

    func testEachFamilyDeceleratesByItsToolkitsCurve() throws {
        let frame = 1.0 / 60
        for family in ToolkitFamily.allCases {
            let trace = FlingSessions.trace(family, seed: 3)
            let runs = glides(trace)
            XCTAssertFalse(runs.isEmpty, family.rawValue)
            for speeds in runs {
                let ratios = zip(speeds.dropFirst(), speeds).map { $0 / $1 }
                switch family {
                case .gtk:
                    for r in ratios { XCTAssertEqual(r, exp(-4 * frame), accuracy: 1e-6, "GTK: friction 4") }
                case .flutter:
                    for r in ratios { XCTAssertEqual(r, pow(0.135, frame), accuracy: 1e-6, "Flutter: drag 0.135") }
                case .uikitNormal, .uikitSnap:
                    for r in ratios { XCTAssertEqual(r, pow(0.998, 1000 * frame), accuracy: 1e-6, ".normal") }
                case .uikitFast:
                    for r in ratios { XCTAssertEqual(r, pow(0.99, 1000 * frame), accuracy: 1e-6, ".fast") }
                case .qt:
                    let steps = zip(speeds.dropFirst(), speeds).map { $1 - $0 }
                    for s in steps { XCTAssertEqual(s, steps[0], accuracy: 1e-6 * speeds[0], "Qt: constant deceleration") }
                case .android:
                    XCTAssertTrue(ratios.allSatisfy { $0 < 1 }, "Android: slows every frame")
                case .chromium:
                    // v = A e^(-3.7t) - B: the frame-to-frame changes decay by e^(-3.7 dt).
                    let steps = zip(speeds.dropFirst(), speeds).map { $1 - $0 }
                    for (next, step) in zip(steps.dropFirst(), steps) {
                        XCTAssertEqual(next / step, exp(-3.7 * frame), accuracy: 1e-6, "Chromium: gamma 3.7")
                    }
                    XCTAssertTrue(steps.allSatisfy { $0 > 0 }, "Chromium: slows every frame")
                }
            }
            if family == .android {
                XCTAssertTrue(runs.contains { $0.last! < $0.first! * 0.1 }, "to a crawl at the spline's end (uncaught)")
            }
        }
        // Chromium's constant part stops a glide in finite time: an uncaught one
        // reaches rest below what one frame of the curve's deceleration takes off.
        let chromium = FlingSessions.trace(.chromium, seed: 3)
        XCTAssertTrue(glides(chromium).contains { $0.last! < $0.first! * 0.05 }, "to rest (uncaught)")
        // Snapping at 2.5-3.5 screens/s, flung at 50-80 (or faster when repeated).
        let snap = FlingSessions.trace(.uikitSnap, seed: 3)
        let screen = Double(snap.visibleRows)
        for speeds in glides(snap) {
            XCTAssertGreaterThanOrEqual(speeds.last!, 2.4 * screen * 0.99)
            XCTAssertGreaterThanOrEqual(speeds.first!, 2.5 * screen)
        }
    }

    func testTheAndroidSplineRunsFromItsReleaseSpeedToRest() {
        // At the start the spline's slope is its distance over duration times 0.5 / 0.175.
        let start = ToolkitPhysics.androidSpline(0)
        XCTAssertEqual(start.fraction, 0, accuracy: 1e-9)
        XCTAssertEqual(start.slope, 0.5 / 0.175, accuracy: 1e-3)
        let end = ToolkitPhysics.androidSpline(1)
        XCTAssertEqual(end.fraction, 1, accuracy: 1e-6)
        XCTAssertEqual(end.slope, 0, accuracy: 1e-3)
    }
}
#endif
