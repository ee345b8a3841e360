/// Where an image came from.
public enum ImageSource: Sendable, Equatable {
    case memory
    case disk
    case network
}

/// The one completion a ticket gets.
public struct LoaderEvent: Sendable {
    public enum Outcome: Sendable {
        case image(DecodedImage, ImageSource)
        case failed(LoaderError)
        /// A data fetch's body.
        case data([UInt8])
        /// A paged list nears its end: the host should fetch and append the next page.
        case needPage
        /// The scans of a progressive JPEG that came so far, at the box, while the
        /// rest downloads: not the ticket's one event, which still follows.
        case preview(DecodedImage)
    }

    public var ticket: UInt64
    public var row: Int
    public var url: ImageURL
    public var outcome: Outcome
    /// The last HTTP status seen; 0 when there was none.
    public var httpStatus: Int
    /// What is known beyond the error code (the HTTP status, the sniffed format);
    /// empty for images and when the code says it all.
    public var message: String = ""

    /// What stands in an event's place once it is delivered: no ticket, and
    /// nothing that holds memory (`ImageURL.none`, an empty message, `needPage`).
    static var spent: LoaderEvent {
        LoaderEvent(ticket: 0, row: 0, url: .none, outcome: .needPage, httpStatus: 0)
    }

    /// A ticket's CANCELLED event.
    var isCancellation: Bool {
        if case .failed(.cancelled) = outcome { return true }
        return false
    }
}

/// How events reach the host.
public enum DeliveryMode: Sendable, Equatable {
    /// Events wait until the host dispatches them on its own thread; an eventfd is
    /// readable meanwhile.
    case host
    /// One internal thread runs the callbacks, one at a time.
    case thread
}
