/// Paces download starts while the list moves, so a finger that flicks back and
/// forth cannot turn each reversal into a burst of starts and cancels on the
/// server. The rows where a fling will rest are not paced: the landing zone is
/// started once per fling, and pacing it would leave the list to rest on blanks.
///
/// A token bucket: each paced start while moving takes a token; tokens come back at
/// `perSecond`, up to `burst`. Steady scrolling never runs out (the rates are twice
/// a screen per second, more than a list slower than the slow-scroll speed needs);
/// only repeated reversals, which re-aim the prefetch window each time, do. At rest
/// nothing is paced: the host may not call again for a while, and the loader has
/// no timer to resume paced starts with.
struct StartRateLimiter {
    /// Full until the first refill caps it at the burst.
    private var tokens = Double.infinity
    private var refilledAt: Int64 = 0

    /// Whether a start may happen now; `screen` is the visible row count. Call
    /// `take` when it does.
    mutating func mayStart(now: Int64, screen: Int, concurrency: Int) -> Bool {
        let (burst, perSecond) = Self.limits(screen: screen, concurrency: concurrency)
        let elapsed = Double(max(0, now - refilledAt)) / 1000
        refilledAt = now
        tokens = min(burst, tokens + elapsed * perSecond)
        return tokens >= 1
    }

    mutating func take() {
        tokens -= 1
    }

    /// Starts the bucket full when the list begins to move.
    mutating func fill(now: Int64, screen: Int, concurrency: Int) {
        tokens = Self.limits(screen: screen, concurrency: concurrency).burst
        refilledAt = now
    }

    private static func limits(screen: Int, concurrency: Int) -> (burst: Double, perSecond: Double) {
        let burst = Double(max(screen, 1)) + Double(concurrency)
        return (burst, 2 * Double(max(screen, concurrency, 1)))
    }
}
