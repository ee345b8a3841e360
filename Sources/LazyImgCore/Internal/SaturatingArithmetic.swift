/// Arithmetic on sizes read from files and servers: a hostile value must make a
/// limit check fail, never trap the process. Saturating at Int.max keeps every
/// comparison against a limit meaningful.
extension Int {
    func addingSaturating(_ other: Int) -> Int {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other < 0 ? .min : .max) : sum
    }

    func multipliedSaturating(by other: Int) -> Int {
        let (product, overflow) = multipliedReportingOverflow(by: other)
        return overflow ? ((self < 0) == (other < 0) ? .max : .min) : product
    }
}
