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
    /// The length the server announced, once known.
    var announced: Int?
    private var bytes: [UInt8] = []
    /// Bytes that arrived, kept or not.
    private(set) var received = 0
    /// What the budget admitted for this body's storage.
    private(set) var charged = 0

    init(limit: Int, budget: DownloadBudget?) {
        self.limit = limit
        self.budget = budget
    }

    /// `owner`: the transfer the budget charges, the same for every call.
    mutating func receive(_ chunk: UnsafeRawBufferPointer, keep: Bool, owner: ObjectIdentifier) -> Reception {
        let total = received.addingClamped(chunk.count)
        if limit > 0 && total > limit {
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

    /// The kept bytes, handed over; the body is empty after.
    mutating func take() -> [UInt8] {
        defer { bytes = [] }
        return bytes
    }

    /// Gives the charge back to the budget: the transfer ended or stopped.
    mutating func release(owner: ObjectIdentifier) {
        budget?.release(charged, of: owner)
        charged = 0
    }
}
