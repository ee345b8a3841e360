/// A plain-text table: the first column left-aligned, the others right-aligned.
struct TextTable {
    private var rows: [[String]]

    init(header: [String]) {
        rows = [header]
    }

    mutating func add(_ row: [String]) {
        rows.append(row)
    }

    func render(indent: String = "    ") -> String {
        let columns = rows.map(\.count).max() ?? 0
        let widths = (0..<columns).map { column in rows.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0 }
        return rows.map { row in
            indent + row.enumerated().map { column, cell in
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                return column == 0 ? cell + pad : pad + cell
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}

/// `value` with `decimals` digits after the point.
public func fixed(_ value: Double, _ decimals: Int) -> String {
    guard value.isFinite else { return value.isNaN ? "-" : "inf" }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    guard decimals > 0 else { return String(Int(rounded)) }
    let whole = Int(rounded.magnitude), fraction = Int(((rounded.magnitude - Double(whole)) * scale).rounded())
    let digits = String(fraction)
    return (rounded < 0 ? "-" : "") + "\(whole)." + String(repeating: "0", count: decimals - digits.count) + digits
}

/// `value / base` as "1.23", or "-" when the base is 0.
func ratio(_ value: Double, _ base: Double) -> String {
    base > 0 ? fixed(value / base, 2) : (value > 0 ? "inf" : "-")
}
