/// A set of row numbers that finds the first or last member inside a range in a
/// few word operations, however many rows the list has.
///
/// The scheduler's priority structure: ranking is geometry (visible rows from the
/// top, then the landing zone, then ahead nearest first), so "the most urgent row
/// still to start" is a successor or predecessor query within a range. A 64-ary
/// bitmap tree answers it in O(log64 n) per query (4 levels cover 16 million
/// rows) and inserts and removes a row in as many steps; nothing is re-ranked when
/// the view moves, because a new view only asks different ranges.
struct RowSet {
    /// levels[0] holds one bit per row; each higher level one bit per non-zero word
    /// of the level below, up to a single word.
    private var levels: [[UInt64]] = [[0]]

    /// One past the largest row the bitmap can hold now; it grows on insert.
    private var capacity: Int { levels[0].count << 6 }

    mutating func removeAll() {
        levels = [[0]]
    }

    mutating func insert(_ row: Int) {
        guard row >= 0 else { return }
        grow(toHold: row)
        var index = row
        for level in levels.indices {
            let word = index >> 6, bit = UInt64(1) << UInt64(index & 63)
            let wasEmpty = levels[level][word] == 0
            levels[level][word] |= bit
            // A word that already had a bit is already marked above.
            guard wasEmpty else { return }
            index = word
        }
    }

    /// Inserts every row of `rows`, a word at a time on the bottom level.
    mutating func insert(_ rows: Range<Int>) {
        let rows = rows.clamped(to: 0..<Int.max)
        guard let last = rows.last else { return }
        grow(toHold: last)
        var row = rows.lowerBound
        while row < rows.upperBound {
            let word = row >> 6
            let from = row & 63
            let to = min(64, rows.upperBound - (word << 6))
            let mask = (to == 64 ? ~UInt64(0) : (UInt64(1) << UInt64(to)) - 1) & ~((UInt64(1) << UInt64(from)) - 1)
            let wasEmpty = levels[0][word] == 0
            levels[0][word] |= mask
            if wasEmpty { markNonEmpty(word: word, above: 0) }
            row = (word + 1) << 6
        }
    }

    mutating func remove(_ row: Int) {
        guard row >= 0, row < capacity else { return }
        var index = row
        for level in levels.indices {
            let word = index >> 6
            levels[level][word] &= ~(UInt64(1) << UInt64(index & 63))
            // Only an emptied word clears its bit above.
            guard levels[level][word] == 0 else { return }
            index = word
        }
    }

    func contains(_ row: Int) -> Bool {
        guard row >= 0, row < capacity else { return false }
        return levels[0][row >> 6] & (UInt64(1) << UInt64(row & 63)) != 0
    }

    /// The smallest member in `range`, or nil.
    func first(in range: Range<Int>) -> Int? {
        let range = range.clamped(to: 0..<capacity)
        guard !range.isEmpty, let found = successor(ofOrAt: range.lowerBound, level: 0) else { return nil }
        return found < range.upperBound ? found : nil
    }

    /// The largest member in `range`, or nil.
    func last(in range: Range<Int>) -> Int? {
        let range = range.clamped(to: 0..<capacity)
        guard !range.isEmpty, let found = predecessor(ofOrAt: range.upperBound - 1, level: 0) else { return nil }
        return found >= range.lowerBound ? found : nil
    }

    /// The smallest member >= index on `level`, climbing only as far as needed.
    private func successor(ofOrAt index: Int, level: Int) -> Int? {
        let words = levels[level]
        let word = index >> 6
        guard word < words.count else { return nil }
        let here = words[word] & (~UInt64(0) << UInt64(index & 63))
        if here != 0 { return word << 6 | here.trailingZeroBitCount }
        // The next non-empty word of this level, found one level up.
        guard level + 1 < levels.count, let next = successor(ofOrAt: word + 1, level: level + 1) else { return nil }
        return next << 6 | words[next].trailingZeroBitCount
    }

    /// The largest member <= index on `level`.
    private func predecessor(ofOrAt index: Int, level: Int) -> Int? {
        let words = levels[level]
        let word = index >> 6
        let shift = UInt64(63 - index & 63)
        let here = words[word] & (~UInt64(0) >> shift)
        if here != 0 { return word << 6 | (63 - here.leadingZeroBitCount) }
        guard word > 0, level + 1 < levels.count, let previous = predecessor(ofOrAt: word - 1, level: level + 1)
        else { return nil }
        return previous << 6 | (63 - words[previous].leadingZeroBitCount)
    }

    private mutating func markNonEmpty(word: Int, above level: Int) {
        var index = word
        for upper in (level + 1)..<levels.count {
            let word = index >> 6
            let wasEmpty = levels[upper][word] == 0
            levels[upper][word] |= UInt64(1) << UInt64(index & 63)
            guard wasEmpty else { return }
            index = word
        }
    }

    /// Widens the bottom level so `row` fits (at least doubling, so growth is
    /// amortised over many inserts) and rebuilds the levels above it.
    private mutating func grow(toHold row: Int) {
        guard row >= capacity else { return }
        var bottom = levels[0]
        bottom.append(contentsOf: repeatElement(0, count: max((row >> 6) + 1 - bottom.count, bottom.count)))
        levels = [bottom]
        while levels[levels.count - 1].count > 1 {
            let below = levels[levels.count - 1]
            var words = [UInt64](repeating: 0, count: (below.count + 63) >> 6)
            for (index, word) in below.enumerated() where word != 0 {
                words[index >> 6] |= UInt64(1) << UInt64(index & 63)
            }
            levels.append(words)
        }
    }
}
