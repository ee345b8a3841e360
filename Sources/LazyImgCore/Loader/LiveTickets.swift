/// The tickets whose one event has not been decided yet, numbered 1, 2, 3... in the
/// order they were opened.
///
/// A ticket is opened on the host's thread for every request that misses, under the
/// front lock; a dictionary of them hashed each ticket's number (SipHash) on the way
/// in and out, a fifth of a miss (callgrind). Tickets mostly end in about the order
/// they were opened, so the recent ones are an array indexed by number, and the few
/// that stay live for long (a row the host keeps asking for while the list flies)
/// move to a dictionary once the array would otherwise grow past `maxWindow`
/// entries: its size stays bounded by the live tickets, not by all tickets ever.
struct LiveTickets<Ticket> {
    /// Tickets `firstNumber ..< firstNumber + window.count`; nil: ended. Below `head`
    /// every slot is nil.
    private var window: [Ticket?] = []
    private var head = 0
    private var firstNumber: UInt64 = 1
    /// Live tickets older than the window.
    private var old: [UInt64: Ticket] = [:]

    /// Slots in use past which the oldest live ticket moves to `old`.
    static var maxWindow: Int { 4096 }

    /// Opens `ticket`, returning its number (never 0, never reused).
    mutating func open(_ ticket: Ticket) -> UInt64 {
        let number = firstNumber &+ UInt64(window.count)
        window.append(ticket)
        while window.count - head > Self.maxWindow {
            if let oldest = window[head] { old[firstNumber &+ UInt64(head)] = oldest }
            window[head] = nil
            advanceHead()
        }
        return number
    }

    /// Ends ticket `number`, returning it; nil when it is not live.
    mutating func retire(_ number: UInt64) -> Ticket? {
        let taken: Ticket?
        if number >= firstNumber &+ UInt64(head), number < firstNumber &+ UInt64(window.count) {
            let index = Int(number - firstNumber)
            taken = window[index]
            window[index] = nil
            if index == head { advanceHead() }
        } else {
            taken = old.removeValue(forKey: number)
        }
        return taken
    }

    /// Whether ticket `number` is live.
    func contains(_ number: UInt64) -> Bool {
        if number >= firstNumber &+ UInt64(head), number < firstNumber &+ UInt64(window.count) {
            return window[Int(number - firstNumber)] != nil
        }
        return old[number] != nil
    }

    /// Ends every live ticket `include` selects, returning them oldest first.
    mutating func retireAll(where include: (Ticket) -> Bool) -> [(number: UInt64, ticket: Ticket)] {
        var ended = old.filter { include($0.value) }.map { (number: $0.key, ticket: $0.value) }.sorted { $0.number < $1.number }
        for entry in ended { old[entry.number] = nil }
        for index in head..<window.count {
            guard let ticket = window[index], include(ticket) else { continue }
            ended.append((number: firstNumber &+ UInt64(index), ticket: ticket))
            window[index] = nil
        }
        while head < window.count, window[head] == nil { head += 1 }
        compact()
        return ended
    }

    /// Past the ended slots at the head; drops them once they are most of the array.
    private mutating func advanceHead() {
        while head < window.count, window[head] == nil { head += 1 }
        compact()
    }

    private mutating func compact() {
        guard head >= 1024 || head == window.count, head * 2 >= window.count, head > 0 else { return }
        window.removeFirst(head)
        firstNumber &+= UInt64(head)
        head = 0
    }
}
