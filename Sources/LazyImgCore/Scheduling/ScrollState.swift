/// The list's scroll state as the host reports it.
public enum ScrollState: Sendable, Equatable {
    case idle
    case dragging
    case decelerating
}

/// Which way the list travels: toward higher rows (`forward`) or lower ones.
public enum ScrollDirection: Sendable, Equatable {
    case forward
    case backward
}
