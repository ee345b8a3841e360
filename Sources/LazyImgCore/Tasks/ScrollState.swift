/// The list's scroll state as the host reports it.
public enum ScrollState: Sendable, Equatable {
    case idle
    case dragging
    case decelerating

    /// While the list moves, no new download starts: rows fly past faster than
    /// their images could arrive.
    public var isMoving: Bool { self != .idle }
}

/// Which way the list travels: toward higher rows (`forward`) or lower ones.
public enum ScrollDirection: Sendable, Equatable {
    case forward
    case backward
}
