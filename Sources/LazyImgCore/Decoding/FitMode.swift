/// How an image meets its target box.
public enum FitMode: Hashable, Sendable {
    /// Inside the box, aspect ratio kept: one side may be shorter than the box's.
    /// A list of mixed photos then shows every photo whole.
    case fit
    /// Covers the box, aspect ratio kept, then the overflow is cut away evenly on both
    /// sides so the result is exactly the box: the square-thumbnail grid.
    ///
    /// Never upscales: when the source is smaller than the box on a side, the result is
    /// the largest centred crop with the box's aspect ratio at the source's own scale
    /// (a 50x200 source in a 100x100 box gives its middle 50x50). A box side of 0 has no
    /// aspect ratio, so such a box is treated as `.fit`.
    case fill
}
