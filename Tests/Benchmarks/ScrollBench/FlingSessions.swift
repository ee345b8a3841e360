/// Sessions of people using a list with one toolkit's physics, generated from a
/// seed: realistic row heights (40-300 px, log-uniform: thumbnail lists sit at
/// the low end) on a 600-1,000 px screen, release speeds
/// from a few hundred to 10,000 px/s (the very fast family 50-80 screens/s), and
/// habits: reading pauses, slow drags, flings to rest, catches, reversals, and a
/// fling right after a fling. The same family and seed make the same trace.
public enum FlingSessions {
    /// Long enough for a dozen gestures: what the physics is learned from.
    public static let defaultSeconds = 12.0
    public static let rows = 10_000

    /// Seeds the estimator's constants were never tuned on: what bench-scroll
    /// reports by default. (`LandingTuning.tuningSeeds` are the others.)
    public static let reportSeeds: [UInt64] = [101, 102]

    /// "family:seed", the name of a trace on the command line.
    public static func name(_ family: ToolkitFamily, seed: UInt64) -> String { "\(family.rawValue):\(seed)" }

    /// Parses "family:seed"; nil when it is not one.
    public static func parse(_ name: String) -> (family: ToolkitFamily, seed: UInt64)? {
        let parts = name.split(separator: ":")
        guard parts.count == 2, let family = ToolkitFamily(rawValue: String(parts[0])),
              let seed = UInt64(parts[1]) else { return nil }
        return (family, seed)
    }

    public static func trace(_ family: ToolkitFamily, seed: UInt64, seconds: Double = defaultSeconds) -> ScrollTrace {
        // The family's index keeps two families of one seed from drawing alike.
        let index = UInt64(ToolkitFamily.allCases.firstIndex(of: family) ?? 0)
        var random = SeededRandom(seed: seed &* 0x1000_0001 &+ index)
        let rowPixels = random.logUniform(40...300)
        let screenPixels = random.uniform(600...1_000)
        let visibleRows = max(1, Int((screenPixels / rowPixels).rounded(.up)))
        let physics = ToolkitPhysics(family: family, rowPixels: rowPixels, screenPixels: screenPixels, random: &random)
        var b = TraceBuilder(rows: rows, visibleRows: visibleRows)
        b.rest(seconds: 0.6)
        while b.seconds < seconds {
            // Mostly on down the list; back up near its end, or now and then.
            let last = Double(rows - visibleRows)
            let forward = b.position < last * 0.2 || (b.position < last * 0.8 && !random.chance(0.2))
            let sign = forward ? 1.0 : -1.0
            let release = sign * physics.releaseSpeed(&random) / rowPixels
            let habit = random.uniform(0...1)
            if habit < 0.1 {
                // Reading while dragging slowly.
                let screensPerSecond = random.uniform(0.3...0.8)
                b.drag(rowsPerSecond: sign * screensPerSecond * Double(visibleRows), seconds: random.uniform(0.6...1.2),
                       wobble: 0.3)
            } else if habit < 0.55 {
                b.fling(rowsPerSecond: release, physics: physics)
            } else if habit < 0.7 {
                // A fling right after a fling, the same way, while the list still glides.
                b.fling(rowsPerSecond: release, catchAtFraction: random.uniform(0.2...0.6), physics: physics)
                let again = physics.repeatedFling(release: physics.releaseSpeed(&random) / rowPixels * sign,
                                                  current: b.lastVelocity)
                b.fling(rowsPerSecond: again, physics: physics)
            } else if habit < 0.85 {
                // Caught to read something flying past: held, then let go.
                b.fling(rowsPerSecond: release, catchAtFraction: random.uniform(0.2...0.9), physics: physics)
                b.drag(rowsPerSecond: 0, seconds: random.uniform(0.1...0.3))
            } else {
                // Caught and flung back a shorter way.
                b.fling(rowsPerSecond: release, catchAtFraction: random.uniform(0.2...0.8), physics: physics)
                b.drag(rowsPerSecond: 0, seconds: 0.08)
                b.fling(rowsPerSecond: -release * random.uniform(0.3...1), physics: physics)
            }
            b.rest(seconds: random.uniform(0.5...1.5))
        }
        return b.trace(named: name(family, seed: seed))
    }
}
