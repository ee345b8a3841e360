import CLazyImgSupport

/// The inputs a UI makes every frame (scroll states, visible ranges, targets and
/// requests that missed), on their way to the scheduler in a ring of fixed slots
/// (`input_ring.h`): a frame's calls write their slots side by side, two to a cache
/// line, and the ring's tail, on a line only the host's threads write. The other
/// host inputs (lists, cancels, fetches, shutdown) go through `hostInputs`, an
/// `Inbox`, each tagged with the ring positions claimed before it, so that the
/// scheduler takes every host input in the order it was given.
///
/// Through the `Inbox` alone, a frame's first call after the frame's sleep read
/// and wrote the inbox's counters, its spare nodes, the node's element and its
/// top, each a line the scheduler's thread had written since (`make
/// bench-frame-floor`; docs/performance.md, "A frame's inputs in a ring").
final class HostInputRing: @unchecked Sendable {
    // @unchecked: the ring is C's, whose slots are handed over by their sequence
    // numbers (acquire, release); the reading side is the scheduler's thread alone.

    /// Slots: a UI gives a few inputs a frame and the scheduler takes them every few
    /// milliseconds while the list moves, so only a host calling in a loop fills
    /// them, and then goes the inbox's way (view calls fold).
    static let capacity: UInt64 = 1024

    private let ring: UnsafeMutablePointer<lazyimg_input_ring>

    init?() {
        guard let ring = lazyimg_input_ring_create(Self.capacity) else { return nil }
        self.ring = ring
    }

    deinit {
        lazyimg_input_ring_destroy(ring)
    }

    private enum Kind: UInt64 {
        case scroll = 1, visible, target, request
    }

    // MARK: The host's threads

    /// Queues `input` if it is a scroll state, a visible range, a target or a
    /// request; false for another kind, or when every slot is taken.
    @inline(__always)
    func push(_ input: SchedulerInput) -> Bool {
        let word: UInt64, a: UInt64, b: UInt64
        switch input {
        case .scroll(let state, let velocity, let at):
            (word, a, b) = (Kind.scroll.rawValue | UInt64(state.code) << 8, velocity.bitPattern, UInt64(bitPattern: at))
        case .visible(let rows):
            (word, a, b) = (Kind.visible.rawValue, Self.bits(rows.lowerBound), Self.bits(rows.upperBound))
        case .target(let rows):
            (word, a, b) = (Kind.target.rawValue, Self.bits(rows.lowerBound), Self.bits(rows.upperBound))
        case .request(let ticket, let row, let imagesCached):
            // The count's low half: the scheduler's own count tells the rest.
            (word, a, b) = (Kind.request.rawValue | imagesCached << 32, ticket, Self.bits(row))
        default:
            return false
        }
        return lazyimg_input_ring_push(ring, word, a, b) != 0
    }

    private static func bits(_ value: Int) -> UInt64 { UInt64(bitPattern: Int64(value)) }

    /// Counts an input the host's thread sent through the inbox, for `inputsGiven`.
    func countOther() {
        lazyimg_input_ring_count_other(ring)
    }

    /// Ring positions claimed so far: an inbox input tagged with it comes after them.
    var claimed: UInt64 { lazyimg_input_ring_claimed(ring) }

    /// Host inputs given so far, both ways (folded view calls aside).
    var inputsGiven: UInt64 { lazyimg_input_ring_inputs(ring) }

    // MARK: The scheduler's thread

    /// The reader's next position.
    var head: UInt64 { lazyimg_input_ring_head(ring) }

    /// Whether an input waits at the reader's next position.
    var hasInput: Bool { lazyimg_input_ring_ready(ring) != 0 }

    /// The input at the reader's next position, if published, and moves past it.
    /// `imagesCached`: the scheduler's count of images cached, which a request's
    /// own count (its low half kept) is at most.
    func take(imagesCached: UInt64) -> SchedulerInput? {
        var word: UInt64 = 0, a: UInt64 = 0, b: UInt64 = 0
        guard lazyimg_input_ring_take(ring, &word, &a, &b) != 0 else { return nil }
        switch Kind(rawValue: word & 0xFF) {
        case .scroll?:
            return .scroll(ScrollState(code: UInt8(truncatingIfNeeded: word >> 8)), velocity: Double(bitPattern: a),
                           at: Int64(bitPattern: b))
        case .visible?:
            return .visible(Self.rows(a, b))
        case .target?:
            return .target(Self.rows(a, b))
        case .request?:
            let behind = (imagesCached &- (word >> 32)) & 0xFFFF_FFFF
            return .request(ticket: a, row: Int(Int64(bitPattern: b)), imagesCached: imagesCached &- behind)
        case nil:
            return nil
        }
    }

    private static func rows(_ lower: UInt64, _ upper: UInt64) -> Range<Int> {
        let lower = Int(Int64(bitPattern: lower)), upper = Int(Int64(bitPattern: upper))
        return lower..<max(lower, upper)
    }
}
