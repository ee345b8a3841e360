/// Set arithmetic on the few row ranges a `SchedulingWindow` wants, so a view change
/// is handled as "these rows left, those entered" in time proportional to them.
enum RowRanges {
    /// The rows in any of `ranges` and in none of `removed`, as disjoint ranges in
    /// ascending order.
    static func subtracting(_ removed: [Range<Int>], from ranges: [Range<Int>]) -> [Range<Int>] {
        var result: [Range<Int>] = []
        for range in union(ranges) {
            var pieces = [range]
            for cut in removed where !cut.isEmpty {
                pieces = pieces.flatMap { piece -> [Range<Int>] in
                    guard piece.overlaps(cut) else { return [piece] }
                    return [piece.lowerBound..<max(piece.lowerBound, cut.lowerBound),
                            min(cut.upperBound, piece.upperBound)..<piece.upperBound]
                        .filter { !$0.isEmpty }
                }
            }
            result += pieces
        }
        return result
    }

    /// Overlapping and touching ranges merged; empty ones dropped.
    static func union(_ ranges: [Range<Int>]) -> [Range<Int>] {
        var merged: [Range<Int>] = []
        for range in ranges.filter({ !$0.isEmpty }).sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, range.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        return merged
    }
}
