/// The list's scroll state as the host reports it.
public enum ScrollState: Sendable, Equatable {
    case idle
    case dragging
    case decelerating
}

extension ScrollState {
    /// The state as a byte, for the atomics and the input ring the host's calls
    /// write (`HostView`, `HostInputRing`).
    var code: UInt8 {
        switch self {
        case .idle: 0
        case .dragging: 1
        case .decelerating: 2
        }
    }

    init(code: UInt8) {
        switch code {
        case 1: self = .dragging
        case 2: self = .decelerating
        default: self = .idle
        }
    }
}

/// Which way the list travels: toward higher rows (`forward`) or lower ones.
public enum ScrollDirection: Sendable, Equatable {
    case forward
    case backward
}
