/// The tickets waiting for one job, with their rows.
///
/// Nearly every job has one ticket or none, so the first is held inline and only
/// further ones go to a table. A deferred request for a row that flies past (a
/// ticket made in one frame and cancelled the next) then allocates nothing for it,
/// and a copy of the tickets (taken while cancelling them) copies no table.
/// Order is unspecified, as a dictionary's: callers that need one sort the ids.
struct JobTickets: Sequence {
    typealias Element = (id: UInt64, row: Int)

    /// Set whenever any ticket is: `more` holds the second and later ones.
    private var first: Element?
    private var more: [UInt64: Int] = [:]

    var isEmpty: Bool { first == nil }

    /// The row of ticket `id`; setting nil removes it.
    subscript(id: UInt64) -> Int? {
        get {
            if let first, first.id == id { return first.row }
            return more.isEmpty ? nil : more[id]
        }
        set {
            if let row = newValue {
                if first == nil || first?.id == id {
                    first = (id, row)
                } else {
                    more[id] = row
                }
            } else if first?.id == id {
                // The table's next ticket, if any, moves inline.
                first = more.popFirst().map { (id: $0.key, row: $0.value) }
            } else if !more.isEmpty {
                more[id] = nil
            }
        }
    }

    /// The row of some ticket: the one a download started for a request belongs to.
    var anyRow: Int? { first?.row }

    var ids: LazyMapSequence<JobTickets, UInt64> { lazy.map(\.id) }
    var rows: LazyMapSequence<JobTickets, Int> { lazy.map(\.row) }

    func makeIterator() -> Iterator {
        Iterator(first: first, more: more.makeIterator())
    }

    struct Iterator: IteratorProtocol {
        fileprivate var first: Element?
        fileprivate var more: [UInt64: Int].Iterator

        mutating func next() -> Element? {
            if let element = first {
                first = nil
                return element
            }
            return more.next().map { (id: $0.key, row: $0.value) }
        }
    }
}
