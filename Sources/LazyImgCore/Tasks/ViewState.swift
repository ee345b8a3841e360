/// What the host has told the loader about its view: visible rows, scroll state and
/// direction of travel. Derives the windows the scheduling policy works on.
public struct ViewState: Sendable {
    /// nil until the host first reports a visible range: then nothing is cancelled
    /// for being off screen and requests run in the order they came.
    public private(set) var visible: Range<Int>?
    public var scroll: ScrollState = .idle
    public private(set) var direction: ScrollDirection = .forward
    /// Rows past the visible range to prefetch; nil = one screen (the visible count).
    public let prefetchRows: Int?

    public init(prefetchRows: Int?) {
        self.prefetchRows = prefetchRows
    }

    /// Records a new visible range; movement sets the direction of travel.
    public mutating func setVisible(_ range: Range<Int>) {
        if let old = visible, range.lowerBound != old.lowerBound {
            direction = range.lowerBound > old.lowerBound ? .forward : .backward
        }
        visible = range
    }

    /// A non-zero velocity sets the direction (positive = toward higher rows).
    public mutating func setScroll(_ state: ScrollState, velocity: Double) {
        scroll = state
        if velocity > 0 { direction = .forward } else if velocity < 0 { direction = .backward }
    }

    /// The rows just past the visible range in the direction of travel.
    public var prefetchWindow: Range<Int> {
        guard let visible else { return 0..<0 }
        let length = max(0, prefetchRows ?? visible.count)
        switch direction {
        case .forward:
            return visible.upperBound..<visible.upperBound.addingClamped(length)
        case .backward:
            return max(0, visible.lowerBound - length)..<visible.lowerBound
        }
    }

    /// Whether work for `row` is still wanted: it is visible or in the prefetch
    /// window. Always true before the first visible range.
    public func wants(_ row: Int) -> Bool {
        guard let visible else { return true }
        return visible.contains(row) || prefetchWindow.contains(row)
    }

    /// How urgent work for `row` is; smaller runs first. Visible rows from the top,
    /// then the prefetch window nearest first, then anything else.
    public func rank(of row: Int) -> Int {
        guard let visible else { return 0 }
        if visible.contains(row) { return row - visible.lowerBound }
        let window = prefetchWindow
        let distance = row < visible.lowerBound ? visible.lowerBound - row : row - visible.upperBound + 1
        let tier = window.contains(row) ? 1 : 2
        return tier << 40 | min(distance, 1 << 39)
    }
}

extension Int {
    /// `self + other` without trapping, for row arithmetic on sizes from C.
    func addingClamped(_ other: Int) -> Int {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? Int.max : sum
    }
}
