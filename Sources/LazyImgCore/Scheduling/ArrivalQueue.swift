/// Jobs in the order their requests came, for requests the view's geometry does
/// not rank: before the first visible range, and for rows outside the window.
struct ArrivalQueue {
    private var keys: [CacheKey] = []
    private var head = 0

    mutating func append(_ key: CacheKey) {
        keys.append(key)
    }

    mutating func popFirst() -> CacheKey? {
        guard head < keys.count else { return nil }
        let key = keys[head]
        head += 1
        // Reclaim the consumed front once it is most of the array.
        if head == keys.count {
            keys.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64 && head * 2 >= keys.count {
            keys.removeFirst(head)
            head = 0
        }
        return key
    }
}
