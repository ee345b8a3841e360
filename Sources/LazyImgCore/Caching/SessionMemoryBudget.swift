import Synchronization

/// One limit on the decoded images all of a session's loaders keep in memory
/// together. Each loader's own `memoryCacheBytes` still limits that loader.
///
/// Each loader's `MemoryCache` reports to the budget whenever it inserts or evicts
/// (its bytes, and how old its least recently used image is), with the loader's
/// state lock held: the budget's lock is only ever taken inside a loader's lock, never
/// the other way round. Eviction across loaders (`trim`) is called with no loader
/// lock held: it picks the loader whose oldest image is the oldest of all and has
/// that loader evict it under its own lock alone. Trims run one at a time (lock
/// order: trim, then a loader, then the budget), and a loader evicts for the budget
/// only while the total is over the limit, so no trim evicts more than needed.
///
/// The bound: once no insert is running, the loaders' images together are within
/// `limit`. While inserts run, the total is over by at most one image per insert
/// whose `trim` has not returned yet (a loader inserts on its decode threads, one
/// image at a time each).
///
/// "Oldest" costs nothing on a memory hit (no shared counter, no lock there): an image
/// carries the session tick of its insertion, raised to the highest tick its loader
/// has already evicted, since the loader's own recency order says an image it kept
/// was used after every image it evicted. So images go across loaders in order of
/// insertion, and a hit protects an image against older images of its own loader,
/// not against those of another loader.
public final class SessionMemoryBudget: Sendable {
    /// What a loader's cache did when the budget asked it to evict its oldest image.
    public enum Eviction: Sendable {
        case evicted
        /// Its oldest image is newer than the bound (hits reordered it since it last
        /// reported), or it holds nothing, or the total is no longer over: it has
        /// reported again.
        case refused
        /// The loader is gone.
        case gone
    }

    private struct Member {
        var bytes = 0
        /// The tick of its least recently used image; nil while it holds none.
        var oldestTick: UInt64?
        /// Evicts the member's oldest image unless its tick is above the bound.
        let evictOldest: @Sendable (_ bound: UInt64) -> Eviction
    }

    private struct State {
        var totalBytes = 0
        var members: [Int: Member] = [:]
        var lastID = 0
    }

    public let limit: Int
    private let state = Locked(State())
    /// Held for a whole trim: one at a time.
    private let trimming = Locked(())
    /// Stamps inserts; taken on the insert path only.
    private let lastTick = Atomic<UInt64>(0)

    /// - Parameter limit: bytes of decoded pixels for all the loaders together.
    public init(limit: Int) {
        self.limit = max(0, limit)
    }

    /// The decoded bytes the session's loaders hold now.
    public var totalBytes: Int {
        state.withLock { $0.totalBytes }
    }

    /// Registers a loader's cache. `evictOldest` runs with no lock held, and takes the
    /// loader's own. The loader stays registered while it holds the returned value.
    public func join(evictOldest: @escaping @Sendable (_ bound: UInt64) -> Eviction) -> Membership {
        let id = state.withLock { s in
            s.lastID += 1
            s.members[s.lastID] = Member(evictOldest: evictOldest)
            return s.lastID
        }
        return Membership(budget: self, id: id)
    }

    /// Evicts the oldest images across loaders until the total is within `limit`.
    /// Call with no loader lock held.
    public func trim() {
        guard isOver else { return }
        trimming.withLock { _ in
            var refusals = 0
            while let (id, evictOldest, bound) = state.withLock({ s in Self.victim(in: s, limit: limit) }) {
                // A refusal republished a newer tick; after a few in a row (hits racing
                // the trim), the oldest as reported goes anyway, so the loop ends.
                switch evictOldest(refusals < 4 ? bound : .max) {
                case .evicted: refusals = 0
                case .refused: refusals += 1
                case .gone: leave(id)
                }
            }
        }
    }

    /// Whether the loaders hold more than `limit` together.
    var isOver: Bool {
        state.withLock { $0.totalBytes > limit }
    }

    /// The member holding the oldest image, and the tick of the next oldest member's
    /// (the bound up to which its image is still the oldest of all); nil when within
    /// the limit.
    private static func victim(in s: State, limit: Int)
        -> (Int, @Sendable (UInt64) -> Eviction, UInt64)?
    {
        guard s.totalBytes > limit else { return nil }
        var oldest: (id: Int, tick: UInt64)?
        var nextTick = UInt64.max
        for (id, member) in s.members {
            guard let tick = member.oldestTick else { continue }
            if let current = oldest, current.tick <= tick {
                nextTick = min(nextTick, tick)
            } else {
                if let current = oldest { nextTick = min(nextTick, current.tick) }
                oldest = (id, tick)
            }
        }
        guard let oldest, let member = s.members[oldest.id] else { return nil }
        return (oldest.id, member.evictOldest, nextTick)
    }

    fileprivate func nextTick() -> UInt64 {
        lastTick.add(1, ordering: .relaxed).newValue
    }

    fileprivate func report(_ id: Int, bytes: Int, oldestTick: UInt64?) {
        state.withLock { s in
            guard let old = s.members[id] else { return }
            s.totalBytes += bytes - old.bytes
            s.members[id]?.bytes = bytes
            s.members[id]?.oldestTick = oldestTick
        }
    }

    fileprivate func leave(_ id: Int) {
        state.withLock { s in
            guard let member = s.members.removeValue(forKey: id) else { return }
            s.totalBytes -= member.bytes
        }
    }

    /// A loader cache's place in the budget: what its `MemoryCache` reports through.
    /// Letting go of it takes the loader's bytes out of the total.
    public final class Membership: Sendable {
        public let budget: SessionMemoryBudget
        let id: Int

        fileprivate init(budget: SessionMemoryBudget, id: Int) {
            self.budget = budget
            self.id = id
        }

        deinit {
            budget.leave(id)
        }

        /// A tick for an image being inserted: later than every tick handed out before.
        func nextTick() -> UInt64 {
            budget.nextTick()
        }

        /// The cache now holds `bytes`; its least recently used image has `oldestTick`.
        func report(bytes: Int, oldestTick: UInt64?) {
            budget.report(id, bytes: bytes, oldestTick: oldestTick)
        }
    }
}
