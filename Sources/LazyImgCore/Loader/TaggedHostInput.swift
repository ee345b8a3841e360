/// A host input sent through the inbox rather than the input ring (a list, a
/// cancel, a fetch, shutdown; a request that found the ring full), with how many
/// ring positions had been claimed when it was given: it comes after those and
/// before the rest.
struct TaggedHostInput: Sendable {
    let after: UInt64
    let input: SchedulerInput

    /// Appends to `batch` the ring's inputs `ring`, at positions `first...`, and
    /// before each the `waiting` inbox inputs given before its position was
    /// claimed, then those given before the next position; removes those from
    /// `waiting`. An inbox input tagged after a position not taken yet (a host
    /// thread between claiming it and publishing it) stays waiting, and so do the
    /// ones after it: the inbox's order is the order they were given.
    static func merge(ring: [SchedulerInput], from first: UInt64, waiting: inout [TaggedHostInput],
                      into batch: inout [SchedulerInput]) {
        var next = 0
        for (offset, input) in ring.enumerated() {
            let position = first &+ UInt64(offset)
            while next < waiting.count, waiting[next].after <= position {
                batch.append(waiting[next].input)
                next += 1
            }
            batch.append(input)
        }
        let end = first &+ UInt64(ring.count)
        while next < waiting.count, waiting[next].after <= end {
            batch.append(waiting[next].input)
            next += 1
        }
        waiting.removeFirst(next)
    }
}
