import Glibc

/// UIKit-style deceleration: after the finger lifts, the velocity decays by a fixed
/// rate per millisecond (UIScrollView.DecelerationRate.normal is 0.998) and the list
/// stops once it is slower than a minimum speed, so it comes to rest while still
/// moving at a few rows per second, not by gliding to zero.
public struct DecelerationPhysics: GlidePhysics {
    public var ratePerMillisecond = 0.998
    /// Rows per second under which the list stops.
    public var minimumSpeed = 20.0

    public init() {}

    /// The positions and velocities of each frame of a glide that starts at `position`
    /// with `velocity`, up to the last frame before it stops; it also stops at the ends
    /// of the list (`bounds`), without bouncing.
    public func glide(from position: Double, velocity: Double,
                      within bounds: ClosedRange<Double>) -> [(position: Double, velocity: Double)] {
        let factor = pow(ratePerMillisecond, 1000 / ScrollTrace.framesPerSecond)
        var steps: [(position: Double, velocity: Double)] = []
        var position = position, velocity = velocity
        while true {
            velocity *= factor
            guard abs(velocity) >= minimumSpeed else { return steps }
            position += velocity / ScrollTrace.framesPerSecond
            if !bounds.contains(position) {
                steps.append((min(max(position, bounds.lowerBound), bounds.upperBound), velocity))
                return steps
            }
            steps.append((position, velocity))
        }
    }
}
