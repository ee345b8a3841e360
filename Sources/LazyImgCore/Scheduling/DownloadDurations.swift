/// How long this loader's downloads have taken, from the start of a transfer to its
/// decoded image, and so how early the host's landing zone must start.
///
/// The lead covers a download with room for a second round. Half a second covers
/// that on a slow mobile link, but on a fast one it starts a fling's landing rows
/// while the user can still fling again: a fling flicked on before it rests wastes
/// the whole zone. So once enough downloads have ended, the lead is twice the
/// slowest of the recent ones (a landing zone starts as a burst, and its last row
/// waits behind the rest), never more than the half second, and never less than
/// a little more than the quarter second of samples the decay fit times the rest
/// from (`DecelerationFit`): over a shorter time its error is its own span. One
/// slow download lengthens the lead for as long as it stays among the recent ones.
struct DownloadDurations {
    /// The downloads remembered.
    static let kept = 16
    /// Until this many have ended (the first screen's downloads, as a rule), the lead
    /// is the longest one.
    static let needed = 8
    static let longestLeadSeconds = ViewState.landingLeadSeconds
    static let shortestLeadSeconds = 0.3
    /// A download, then room for a second round.
    static let rounds = 2.0

    private var recent: [Int64] = []
    private var next = 0

    /// A download from the network that ended in an image, `milliseconds` after it
    /// started.
    mutating func record(milliseconds: Int64) {
        let duration = max(0, milliseconds)
        if recent.count < Self.kept {
            recent.append(duration)
        } else {
            recent[next] = duration
            next = (next + 1) % Self.kept
        }
    }

    /// How long before the host's target is expected to rest its rows start.
    var targetLeadSeconds: Double {
        guard recent.count >= Self.needed, let slowest = recent.max() else { return Self.longestLeadSeconds }
        let lead = Self.rounds * Double(slowest) / 1000
        return min(Self.longestLeadSeconds, max(Self.shortestLeadSeconds, lead))
    }
}
