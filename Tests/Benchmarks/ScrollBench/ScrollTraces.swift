/// The benchmark's traces over a list of 2,000 rows with 10 on screen. Flings use
/// UIKit-like physics (see DecelerationPhysics); a slow drag stays under one screen
/// per second.
public enum ScrollTraces {
    public static let rows = 2_000
    public static let visibleRows = 10

    public static let names = ["read-fling-read", "fling-reverse", "slow-drag", "jump-end", "long-session",
                               "fast-read-fling-read"]
    /// Traces whose rows come back after they left the window (a read-back, a
    /// re-fling): where a cancelled download may resume. Run on the slow link.
    public static let returningNames = ["read-back", "catch-refling"]

    /// A fixed trace by name, or a generated session by "family:seed".
    public static func named(_ name: String) -> ScrollTrace? {
        if let session = FlingSessions.parse(name) { return FlingSessions.trace(session.family, seed: session.seed) }
        return switch name {
        case "read-fling-read": readFlingRead()
        case "fling-reverse": flingReverse()
        case "slow-drag": slowDrag()
        case "jump-end": jumpToEnd()
        case "long-session": longSession()
        case "fast-read-fling-read": fastReadFlingRead()
        case "read-back": readBack()
        case "catch-refling": catchRefling()
        default: nil
        }
    }

    /// How long read-fling-read reads each screen: 0.8 s, longer (`--read-ms`) for a
    /// site whose screenful takes longer than that to come over the link.
    nonisolated(unsafe) public static var readSeconds = 0.8

    /// Read a screen, fling on, read the next, four times at different strengths.
    static func readFlingRead() -> ScrollTrace {
        var b = TraceBuilder(rows: rows, visibleRows: visibleRows)
        b.rest(seconds: readSeconds)
        for speed in [180.0, 320.0, 120.0, 250.0] {
            b.fling(rowsPerSecond: speed)
            b.rest(seconds: readSeconds)
        }
        return b.trace(named: "read-fling-read")
    }

    /// Read a screen, fling on very fast (50-80 screens/s), read the next, five
    /// times: UIKit's .normal decay snapping to rest at 3 screens/s, so a first
    /// fling cannot know where it stops.
    static func fastReadFlingRead() -> ScrollTrace {
        var b = TraceBuilder(rows: rows, visibleRows: visibleRows)
        b.physics.minimumSpeed = 3 * Double(visibleRows)
        b.rest(seconds: 0.8)
        for screensPerSecond in [60.0, 75, 52, 80, 66] {
            b.fling(rowsPerSecond: screensPerSecond * Double(visibleRows))
            b.rest(seconds: 0.8)
        }
        return b.trace(named: "fast-read-fling-read")
    }

    /// A strong fling caught after a while and flung back a shorter way: the list
    /// rests among rows it passed on the way out, never where the toolkit first said.
    static func flingReverse() -> ScrollTrace {
        var b = TraceBuilder(rows: rows, visibleRows: visibleRows)
        b.rest(seconds: 0.8)
        for (out, back) in [(400.0, -150.0), (350.0, -200.0), (380.0, -120.0)] {
            b.fling(rowsPerSecond: out, catchAfter: 0.5)
            b.drag(rowsPerSecond: back / 3, seconds: 0.15)
            b.fling(rowsPerSecond: back)
            b.rest(seconds: 0.8)
        }
        return b.trace(named: "fling-reverse")
    }

    /// Reading down the list, going back up a little to read again, then on down:
    /// the rows ahead that loaded while the list went down leave the window when it
    /// turns, and are wanted again when it turns back.
    static func readBack() -> ScrollTrace {
        var b = TraceBuilder(rows: rows, visibleRows: visibleRows)
        b.rest(seconds: 0.8)
        for _ in 0..<4 {
            b.drag(rowsPerSecond: 8, seconds: 1.2, wobble: 0.3)
            b.drag(rowsPerSecond: -8, seconds: 0.6, wobble: 0.3)
            b.rest(seconds: 0.5)
        }
        b.drag(rowsPerSecond: 8, seconds: 1.2, wobble: 0.3)
        b.rest(seconds: 0.8)
        return b.trace(named: "read-back")
    }

    /// A fling caught half way, and flung on again at once to about where the
    /// first would have rested: its landing zone is cancelled by the catch and
    /// wanted again by the second fling.
    static func catchRefling() -> ScrollTrace {
        var b = TraceBuilder(rows: rows, visibleRows: visibleRows)
        b.rest(seconds: 0.8)
        for speed in [200.0, 300.0, 160.0] {
            b.fling(rowsPerSecond: speed, catchAtFraction: 0.3)
            b.drag(rowsPerSecond: b.lastVelocity / 4, seconds: 0.1)
            b.fling(rowsPerSecond: speed * 0.6)
            b.rest(seconds: 0.8)
        }
        return b.trace(named: "catch-refling")
    }

    /// Reading while dragging slowly, a bit over half a screen per second, for longer
    /// than a screen and its prefetch window last.
    static func slowDrag() -> ScrollTrace {
        var b = TraceBuilder(rows: rows, visibleRows: visibleRows)
        b.rest(seconds: 0.5)
        b.drag(rowsPerSecond: 6, seconds: 4.5, wobble: 0.4)
        b.rest(seconds: 0.8)
        return b.trace(named: "slow-drag")
    }

    /// Animated scrolls to the end of the list, to its middle and near the top.
    static func jumpToEnd() -> ScrollTrace {
        var b = TraceBuilder(rows: rows, visibleRows: visibleRows)
        b.rest(seconds: 0.8)
        for row in [rows - visibleRows, rows / 2, 300] {
            b.animatedScroll(to: Double(row), seconds: 0.4)
            b.rest(seconds: 0.9)
        }
        return b.trace(named: "jump-end")
    }

    /// About 10 s of mixed use from a fixed seed: reads, slow drags, flings mostly
    /// forward, some caught, and one jump.
    static func longSession() -> ScrollTrace {
        var b = TraceBuilder(rows: rows, visibleRows: visibleRows)
        var random = SeededRandom(seed: 0x5eed_0006)
        b.rest(seconds: 0.8)
        var step = 0
        while b.seconds < 10 {
            step += 1
            let forward = random.next(below: 5) != 0 || b.position < 50
            let sign = forward ? 1.0 : -1.0
            switch random.next(below: 6) {
            case 0:
                b.drag(rowsPerSecond: sign * (3 + Double(random.next(below: 6))), seconds: 1.0, wobble: 0.3)
            case 1:
                b.fling(rowsPerSecond: sign * (150 + Double(random.next(below: 200))), catchAfter: 0.3)
                b.drag(rowsPerSecond: sign * 2, seconds: 0.2)
            case 2 where step > 4:
                b.animatedScroll(to: Double(random.next(below: rows)), seconds: 0.4)
            default:
                b.fling(rowsPerSecond: sign * (100 + Double(random.next(below: 300))))
            }
            b.rest(seconds: 0.6 + Double(random.next(below: 10)) / 10)
        }
        return b.trace(named: "long-session")
    }
}
