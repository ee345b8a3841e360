import LazyImgCore

/// The fewest bytes of an interlaced PNG whose start holds `passes` complete Adam7
/// passes (`PNGInterlacedPrefix.examine` grows with the start, so a bisection finds it).
func fewestBytes(holdingPasses passes: Int, of png: [UInt8]) -> Int {
    var low = 0, high = png.count
    while low < high {
        let middle = (low + high) / 2
        if (try? PNGInterlacedPrefix.examine(Array(png[..<middle]), throughPass: 7))??.completePasses ?? 0 >= passes {
            high = middle
        } else {
            low = middle + 1
        }
    }
    return low
}
