#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_3 // ThreadSanitizer group 3 (see the Makefile's tsan)
import XCTest
@testable import LazyImgCore

/// A scroll target past the end of the list is moved back onto it by the target's
/// own length, so the landing zone stays put while the visible count changes by one
/// as rows are cut at the screen's edges (the terminal list's glide to the end).
final class ScrollTargetClampTests: XCTestCase {
    func testATargetPastTheEndMovesBackByItsOwnLengthWhateverTheScreen() {
        var view = ViewState(prefetchRows: nil)
        view.rowCount = 60
        // Braking hard: the rest is due.
        for (frame, speed) in [50.0, 40, 30, 20].enumerated() {
            view.setScroll(.decelerating, velocity: speed, now: 16 * Int64(frame))
        }
        view.setTarget(56..<61)  // its last row is the "loading more" line
        view.setVisible(50..<55)  // five rows
        let withFive = view.window().landing
        view.setVisible(50..<56)  // six: one more cut at the edge
        XCTAssertEqual(withFive, 54..<60, "rows 55-59 and a margin of one")
        XCTAssertEqual(view.window().landing, withFive)
    }
}
#endif
