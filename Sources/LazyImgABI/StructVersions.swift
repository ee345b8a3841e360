import CLazyImgHeader

/// The `struct_size` values a caller's versioned struct may carry: the sizes the
/// struct had in a released header, or at least the size this library knows (a newer
/// header's struct, of which we read our own prefix). Any other size ends inside a
/// field (12 is half of `on_event`), so copying that prefix would hand the core half
/// a pointer; such sizes are refused.
///
/// The released sizes are computed from the field that ended each version, not
/// written down as numbers: they stay right on every platform, and whatever fields
/// are appended now does not move them.
enum StructVersions {
    /// lazyimg_config in 0.1 (ends at retry_after_ms), 0.2 (ends at output) and 0.3
    /// (ends at session).
    static let releasedConfigSizes: [Int] = [
        sizeThrough(lazyimg_config.self, \.retry_after_ms),
        sizeThrough(lazyimg_config.self, \.output),
        sizeThrough(lazyimg_config.self, \.session),
    ]

    /// lazyimg_stats in 0.1 and 0.2 (both end at in_flight) and 0.3 (ends at
    /// decodes_skipped).
    static let releasedStatsSizes: [Int] = [
        sizeThrough(lazyimg_stats.self, \.in_flight),
        sizeThrough(lazyimg_stats.self, \.decodes_skipped),
    ]

    static func isAcceptedConfigSize(_ size: Int) -> Bool {
        isAccepted(size, released: releasedConfigSizes, current: MemoryLayout<lazyimg_config>.size)
    }

    static func isAcceptedStatsSize(_ size: Int) -> Bool {
        isAccepted(size, released: releasedStatsSizes, current: MemoryLayout<lazyimg_stats>.size)
    }

    private static func isAccepted(_ size: Int, released: [Int], current: Int) -> Bool {
        size >= current || released.contains(size)
    }

    /// sizeof a struct whose last field is `field`: the field's end, rounded up to the
    /// struct's alignment, as a C compiler pads it.
    private static func sizeThrough<Struct, Field>(_ type: Struct.Type, _ field: KeyPath<Struct, Field>) -> Int {
        let end = (MemoryLayout<Struct>.offset(of: field) ?? 0) + MemoryLayout<Field>.size
        let alignment = MemoryLayout<Struct>.alignment
        return (end + alignment - 1) / alignment * alignment
    }
}
