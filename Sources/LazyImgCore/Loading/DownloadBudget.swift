/// The memory one loader's downloads may hold: the bodies of its running transfers
/// and the files waiting for (or in) a decode, against `decode_queue_bytes`.
///
/// Before, the budget stopped new downloads only: the running ones went on, each up
/// to max_response_bytes, and 40 rows of 27 MB PNGs peaked at 519-547 MB. Now a
/// transfer asks before its body grows (`admit`); when the budget is spent, the
/// network thread pauses it (CURL_WRITEFUNC_PAUSE) and resumes it once decodes or
/// other transfers give bytes back (`wakeWhenRoom`).
///
/// One transfer at a time, the lead, may go past the limit, so a file larger than
/// the budget still loads and paused transfers never wait on each other for good: a
/// transfer becomes the lead when everything else held fits in the limit. So what is
/// held stays under `limit` plus one body (at most max_response_bytes).
public final class DownloadBudget: Sendable {
    public let limit: Int

    private struct State {
        /// Transfers' charges and queued files together.
        var held = 0
        var lead: ObjectIdentifier?
        /// An admit was refused since the last wake: someone waits for room.
        var wantsRoom = false
        var wakers: [ObjectIdentifier: @Sendable () -> Void] = [:]
    }

    private let state = Locked(State())

    public init(limit: Int) {
        self.limit = max(0, limit)
    }

    /// Transfers' charges and queued files: what the pump compares to `limit`.
    public var heldBytes: Int {
        state.withLock { $0.held }
    }

    /// Network thread: whether `transfer`, which holds `charged` bytes, may hold
    /// `more`. False means pause it and ask again after a wake.
    func admit(_ more: Int, for transfer: ObjectIdentifier, holding charged: Int) -> Bool {
        state.withLock { s in
            let fits = s.held.addingClamped(more) <= limit
            // Everything else fits, so this one may run past the limit: the only way
            // forward once the budget is full of partial bodies.
            let leads = s.lead == transfer || (s.lead == nil && s.held - charged <= limit)
            guard fits || leads else {
                s.wantsRoom = true
                return false
            }
            if !fits { s.lead = transfer }
            s.held = s.held.addingClamped(more)
            return true
        }
    }

    /// Network thread: a transfer ended or stopped and gives back what it held.
    func release(_ bytes: Int, of transfer: ObjectIdentifier) {
        change { s in
            s.held -= bytes
            if s.lead == transfer { s.lead = nil }
        }
    }

    /// A downloaded file joins the decode queue (`bytes` of it). Also bytes that
    /// exist already and join a transfer (a kept partial body it continues): held
    /// without asking, as moving them makes no memory.
    public func queue(_ bytes: Int) {
        state.withLock { s in s.held = s.held.addingClamped(bytes) }
    }

    /// A file left the decode queue: decoded, or skipped.
    public func unqueue(_ bytes: Int) {
        change { s in s.held -= bytes }
    }

    /// Network thread: `wake` is called (on any thread, no lock held) whenever bytes
    /// come back after an admit was refused. One waker per `owner`.
    func wakeWhenRoom(_ owner: ObjectIdentifier, _ wake: @escaping @Sendable () -> Void) {
        state.withLock { s in
            if s.wakers[owner] == nil { s.wakers[owner] = wake }
        }
    }

    /// Applies `body`, then wakes whoever waits for room.
    private func change(_ body: (inout State) -> Void) {
        let wakers = state.withLock { s -> [@Sendable () -> Void] in
            body(&s)
            guard s.wantsRoom else { return [] }
            s.wantsRoom = false
            return Array(s.wakers.values)
        }
        for wake in wakers { wake() }
    }
}
