#if LAZYIMG_FRAME_FLOOR
import Synchronization

/// What the frame calls do instead of their work in `make bench-frame-floor`'s
/// build, and in no other: a view call stores to a line of the loader, and a
/// request answers PENDING with the next number, deciding nothing. The scroll
/// benchmark's frames then cost the calls' way into the library, their argument
/// checks and one line of the loader, with no scheduler, downloads or events
/// behind them: the floor that no change to the calls' work can take a frame
/// below. With LAZYIMG_FRAME_FLOOR_VIEWS as well, the view calls do their real
/// work and only the requests are stand-ins.
extension ImageLoader {
    public func floorTouch(_ value: UInt) {
        floorTouched.store(value, ordering: .relaxed)
    }

    public func floorTicket() -> UInt64 {
        floorTickets.add(1, ordering: .relaxed).newValue
    }
}
#endif
