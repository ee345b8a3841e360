/// One request the site answered for a row whose image never showed in a cell, with
/// what the list was doing when it arrived: the evidence for tuning the policy
/// (`lazyimg-bench-scroll --waste-rows` prints them).
public struct WastedRequest: Sendable {
    public let frame: Int
    public let motion: ScrollFrame.Motion
    public let velocity: Double
    public let visible: Range<Int>
    public let row: Int

    /// One line per request, in arrival order, for one loader on one trace.
    public static func lines(_ requests: [WastedRequest], trace: String, loader: String) -> String {
        requests.map { request in
            "    waste \(trace) \(loader): frame \(request.frame) \(request.motion) \(Int(request.velocity.rounded())) rows/s, "
                + "visible \(request.visible.lowerBound)..<\(request.visible.upperBound), row \(request.row)"
        }.joined(separator: "\n")
    }
}
