/// The body of one hop as it arrives: kept within the hop's byte limit, its storage
/// grown in steps that the loader's `DownloadBudget` must admit first.
///
/// Storage doubles from `firstStep`, never past the announced length or the limit;
/// once `announcedTrustedAfter` bytes came, it grows to the announced length in one
/// step. So an honest body ends in one allocation of its own size (a chain of
/// doublings left glibc's arenas holding freed steps), and a lying Content-Length
/// gets storage beyond twice what came only after that much did come. Bytes of a
/// response that holds no image (an error page, a redirect's page) are counted and
/// dropped.
///
/// A body may continue a kept partial body (`continuing`): those bytes come first,
/// count against the limit with the rest, and are charged to the budget at once.
struct ResponseBody {
    enum Reception: Equatable {
        case taken
        /// Over the limit: abort the transfer.
        case overLimit
        /// The budget has no room for the next step: pause until it has, then the
        /// same bytes come again.
        case paused
    }

    static let firstStep = 64 << 10
    static let announcedTrustedAfter = 1 << 20

    /// 0 = no limit.
    let limit: Int
    let budget: DownloadBudget?
    /// The whole body's length as the server announced it, once known (with a
    /// prefix: the prefix and the rest together).
    var announced: Int?
    private var bytes: [UInt8] = []
    /// Bytes that arrived, kept or not; a prefix's are not among them.
    private(set) var received = 0
    /// The bytes of the kept partial body this one continues; 0 = none.
    private(set) var prefixLength = 0
    /// What the budget admitted for this body's storage.
    private(set) var charged = 0

    init(limit: Int, budget: DownloadBudget?) {
        self.limit = limit
        self.budget = budget
    }

    /// `owner`: the transfer the budget charges, the same for every call.
    mutating func receive(_ chunk: UnsafeRawBufferPointer, keep: Bool, owner: ObjectIdentifier) -> Reception {
        let total = received.addingClamped(chunk.count)
        if limit > 0 && prefixLength.addingClamped(total) > limit {
            received = total
            return .overLimit
        }
        let needed = bytes.count.addingClamped(chunk.count)
        if keep && needed > bytes.capacity {
            var step = max(needed, bytes.capacity.multipliedClamped(2), Self.firstStep)
            if let announced, announced >= needed {
                step = bytes.count >= Self.announcedTrustedAfter ? announced : min(step, announced)
            }
            if limit > 0 { step = min(step, limit) }
            if let budget, !budget.admit(max(0, step - charged), for: owner, holding: charged) { return .paused }
            bytes.reserveCapacity(step)
            charged = max(step, charged)
        }
        received = total
        if keep { bytes.append(contentsOf: chunk) }
        return .taken
    }

    /// The kept bytes so far, left in the body.
    var kept: [UInt8] { bytes }

    /// The kept bytes, handed over; the body is empty after.
    mutating func take() -> [UInt8] {
        defer { bytes = [] }
        return bytes
    }

    /// Starts the body with `prefix`, bytes of an earlier transfer, before any byte
    /// arrives. They exist already, so the budget is charged without asking: moving
    /// them here makes no memory. Not past the limit: a longer prefix is ignored.
    mutating func continuing(_ prefix: [UInt8]) {
        guard bytes.isEmpty, received == 0, limit == 0 || prefix.count <= limit else { return }
        bytes = prefix
        prefixLength = prefix.count
        charged = prefix.capacity
        budget?.queue(charged)
    }

    /// The answer brought the body from its first byte: the prefix goes, and its
    /// charge back to the budget.
    mutating func dropPrefix(owner: ObjectIdentifier) {
        guard prefixLength > 0 else { return }
        bytes = []
        prefixLength = 0
        release(owner: owner)
    }

    /// Gives the charge back to the budget: the transfer ended or stopped.
    mutating func release(owner: ObjectIdentifier) {
        budget?.release(charged, of: owner)
        charged = 0
    }
}
