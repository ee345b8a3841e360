/// The benchmark's traces over a list of 2,000 rows with 10 on screen. Flings use
/// UIKit-like physics (see DecelerationPhysics); a slow drag stays under one screen
/// per second.
public enum ScrollTraces {
    public static let rows = 2_000
    public static let visibleRows = 10

    public static let names = ["read-fling-read", "fling-reverse", "slow-drag", "jump-end", "long-session"]

    public static func named(_ name: String) -> ScrollTrace? {
        switch name {
        case "read-fling-read": readFlingRead()
        case "fling-reverse": flingReverse()
        case "slow-drag": slowDrag()
        case "jump-end": jumpToEnd()
        case "long-session": longSession()
        default: nil
        }
    }

    /// Read a screen, fling on, read the next, three times at different strengths.
    static func readFlingRead() -> ScrollTrace {
        var b = TraceBuilder(rows: rows, visibleRows: visibleRows)
        b.rest(seconds: 0.8)
        for speed in [180.0, 320.0, 120.0] {
            b.fling(rowsPerSecond: speed)
            b.rest(seconds: 1.2)
        }
        return b.trace(named: "read-fling-read")
    }

    /// A fling down caught halfway and flung back up: the first resting place the
    /// toolkit announced is never reached.
    static func flingReverse() -> ScrollTrace {
        var b = TraceBuilder(rows: rows, visibleRows: visibleRows)
        b.rest(seconds: 0.8)
        for (down, back) in [(300.0, -250.0), (260.0, -200.0)] {
            b.fling(rowsPerSecond: down, catchAfter: 0.4)
            b.drag(rowsPerSecond: back / 3, seconds: 0.15)
            b.fling(rowsPerSecond: back)
            b.rest(seconds: 1.2)
        }
        return b.trace(named: "fling-reverse")
    }

    /// Reading while dragging slowly: half a screen per second and a bit more.
    static func slowDrag() -> ScrollTrace {
        var b = TraceBuilder(rows: rows, visibleRows: visibleRows)
        b.rest(seconds: 0.5)
        b.drag(rowsPerSecond: 5, seconds: 3, wobble: 0.4)
        b.rest(seconds: 0.4)
        b.drag(rowsPerSecond: 7, seconds: 2.5, wobble: 0.4)
        b.rest(seconds: 0.8)
        return b.trace(named: "slow-drag")
    }

    /// Animated scrolls to the end of the list and back to its middle.
    static func jumpToEnd() -> ScrollTrace {
        var b = TraceBuilder(rows: rows, visibleRows: visibleRows)
        b.rest(seconds: 0.8)
        b.animatedScroll(to: Double(rows - visibleRows), seconds: 0.4)
        b.rest(seconds: 1.2)
        b.animatedScroll(to: Double(rows / 2), seconds: 0.4)
        b.rest(seconds: 1.2)
        return b.trace(named: "jump-end")
    }

    /// About 15 s of mixed use from a fixed seed: reads, slow drags, flings mostly
    /// forward, some caught, and one jump.
    static func longSession() -> ScrollTrace {
        var b = TraceBuilder(rows: rows, visibleRows: visibleRows)
        var random = SeededRandom(seed: 0x5eed_0006)
        b.rest(seconds: 0.8)
        var step = 0
        while b.seconds < 15 {
            step += 1
            let forward = random.next(below: 5) != 0 || b.position < 50
            let sign = forward ? 1.0 : -1.0
            switch random.next(below: 6) {
            case 0:
                b.drag(rowsPerSecond: sign * (3 + Double(random.next(below: 6))), seconds: 1.0, wobble: 0.3)
            case 1:
                b.fling(rowsPerSecond: sign * (150 + Double(random.next(below: 200))), catchAfter: 0.3)
                b.drag(rowsPerSecond: sign * 2, seconds: 0.2)
            case 2 where step > 6:
                b.animatedScroll(to: Double(random.next(below: rows)), seconds: 0.4)
            default:
                b.fling(rowsPerSecond: sign * (100 + Double(random.next(below: 300))))
            }
            b.rest(seconds: 0.6 + Double(random.next(below: 10)) / 10)
        }
        return b.trace(named: "long-session")
    }
}
