import Synchronization

/// The placeholder hashes of a loader's rows, parallel to its list, and the images
/// drawn from them for the rows asked for lately.
///
/// Behind a lock of its own, held only for an array index or a step of the small LRU:
/// rendering happens outside it. When both locks are held (a list change), the
/// loader's is taken first; this one never waits on the loader's.
final class RowPlaceholders: Sendable {
    /// Images kept: a few screens of rows, at most 64 x 64 x 4 bytes each (1 MiB).
    static let keptImages = 64

    private struct State {
        /// One per row once any row has had a placeholder; empty until then, when list
        /// changes skip it (a list of 100 000 rows would cost megabytes of nils).
        var hashes: [Placeholder?] = []
        var drawn = RecencySlots<(row: Int, image: DecodedImage)>()
        var slotOfRow: [Int: Int] = [:]
        /// Counts changes of the hashes, so an image drawn from a replaced hash is not kept.
        var version: UInt64 = 0

        mutating func forgetDrawn(row: Int) {
            if let slot = slotOfRow.removeValue(forKey: row) { drawn.remove(slot) }
        }

        mutating func forgetAllDrawn() {
            drawn = RecencySlots()
            slotOfRow = [:]
        }
    }

    private let state = Locked(State())
    /// Set once any row has had a placeholder: a loader whose host never gives one pays
    /// an atomic load per request, not a lock.
    private let inUse = Atomic<Bool>(false)

    var isInUse: Bool { inUse.load(ordering: .acquiring) }
    private let options: DecodeOptions

    init(options: DecodeOptions) {
        self.options = options
    }

    /// The list was replaced by `rowCount` rows: none has a placeholder yet.
    func listReplaced(rowCount: Int) {
        guard inUse.load(ordering: .acquiring) else { return }
        state.withLock { s in
            s.hashes = Array(repeating: nil, count: rowCount)
            s.forgetAllDrawn()
            s.version &+= 1
        }
    }

    /// `count` rows were appended, without placeholders.
    func listAppended(_ count: Int) {
        guard inUse.load(ordering: .acquiring) else { return }
        state.withLock { s in s.hashes.append(contentsOf: repeatElement(nil, count: count)) }
    }

    /// Gives rows `first ..< first + placeholders.count` their placeholders (nil: none).
    /// Throws `.outOfRange` when they are not all rows of a list of `rowCount`, setting
    /// nothing. Called with the loader's lock held, as the list changes are, so
    /// `rowCount` is the list's.
    func set(first: Int, _ placeholders: [Placeholder?], rowCount: Int) throws(LoaderError) {
        guard first >= 0, first <= rowCount, placeholders.count <= rowCount - first else { throw .outOfRange }
        guard !placeholders.isEmpty else { return }
        state.withLock { s in
            if s.hashes.count != rowCount { s.hashes = Array(repeating: nil, count: rowCount) }
            for (offset, placeholder) in placeholders.enumerated() {
                s.hashes[first + offset] = placeholder
                s.forgetDrawn(row: first + offset)
            }
            s.version &+= 1
        }
        inUse.store(true, ordering: .releasing)
    }

    private enum Lookup {
        case none
        case drawn(DecodedImage)
        case toDraw(Placeholder, version: UInt64)
    }

    /// `row`'s placeholder image, drawn now (on the calling thread) unless drawn lately;
    /// nil when the row has none.
    func image(forRow row: Int) -> DecodedImage? {
        guard inUse.load(ordering: .acquiring) else { return nil }
        let lookup = state.withLock { s -> Lookup in
            guard row >= 0, row < s.hashes.count, let placeholder = s.hashes[row] else { return .none }
            if let slot = s.slotOfRow[row] {
                s.drawn.touch(slot)
                return .drawn(s.drawn[slot].image)
            }
            return .toDraw(placeholder, version: s.version)
        }
        switch lookup {
        case .none:
            return nil
        case .drawn(let image):
            return image
        case .toDraw(let placeholder, let version):
            guard let image = placeholder.render(for: options) else { return nil }
            state.withLock { s in
                // Kept only if the hashes did not change meanwhile, and once.
                guard s.version == version, s.slotOfRow[row] == nil else { return }
                s.slotOfRow[row] = s.drawn.insertAsNewest((row, image))
                if s.slotOfRow.count > Self.keptImages {
                    let oldest = s.drawn.oldest
                    s.forgetDrawn(row: s.drawn[oldest].row)
                }
            }
            return image
        }
    }

    /// Drops the drawn images (a memory warning); the hashes stay.
    func dropDrawn() {
        state.withLock { $0.forgetAllDrawn() }
    }
}
