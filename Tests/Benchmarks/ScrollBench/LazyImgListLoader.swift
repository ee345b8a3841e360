import CLazyImgHeader
import CLazyImgHost
import Glibc

/// lazyimg as a C host uses it: a loader made through the C API with host delivery,
/// and the per-frame part and the event callback in C (`lazyimg_host.h`), as the
/// LazyTable baseline's are (`lazy_table.h`): cells that hold a +1 image or a
/// ticket, and per frame set_scroll_state (plus set_scroll_target when a fling or
/// animated scroll announces its resting place and the library has the call),
/// set_visible_range, lazyimg_request for each row that appeared, and one
/// lazyimg_dispatch. The harness's Swift stays outside the timed frame, as it does
/// for LazyTable (in the timed frame it was 7% of the instructions, callgrind).
final class LazyImgListLoader: ListLoader {
    private let host: OpaquePointer
    private let visibleRows: Int
    private let usesScrollTarget: Bool
    private var finished = false

    /// Defaults except the cell's box, which every loader in the benchmark decodes to.
    init(urls: [String], visibleRows: Int, box: Int, useScrollTarget: Bool = true,
         fetchesFirstPassOnly: Bool = true, previewIntervalMilliseconds: Int = 0) throws(BenchError) {
        self.visibleRows = visibleRows
        let scrollTarget = useScrollTarget ? ScrollTargetCall.available : nil
        usesScrollTarget = scrollTarget != nil
        let setTarget = scrollTarget.map { unsafeBitCast($0.function, to: lazyimg_host_target_fn.self) }
        guard let host = lazyimg_host_create(urls.count, setTarget) else { throw .setup("lazyimg_host_create: out of memory") }
        self.host = host
        var config = lazyimg_config()
        lazyimg_config_init(&config)
        config.target_width = UInt32(box)
        config.target_height = UInt32(box)
        config.fetch_first_pass_only = fetchesFirstPassOnly ? 1 : 0
        config.preview_interval_ms = UInt32(previewIntervalMilliseconds)
        config.user_data = UnsafeMutableRawPointer(host)
        config.on_event = lazyimg_host_on_event
        var created: OpaquePointer?
        let status = lazyimg_loader_create(&config, &created)
        guard status == LAZYIMG_OK, let created else {
            _ = lazyimg_host_finish(host)
            throw .setup("lazyimg_loader_create: \(String(cString: lazyimg_strerror(status)))")
        }
        lazyimg_host_attach(host, created)
        let copies = urls.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        let rows = copies.map { UnsafePointer($0) }
        let itemsStatus = rows.withUnsafeBufferPointer { lazyimg_set_items(created, $0.baseAddress, $0.count) }
        guard itemsStatus == LAZYIMG_OK else {
            _ = lazyimg_host_finish(host)
            throw .setup("lazyimg_set_items: \(String(cString: lazyimg_strerror(itemsStatus)))")
        }
    }

    func frame(_ frame: ScrollFrame, visible: Range<Int>, appeared: [Int]) -> Int64 {
        let state: lazyimg_scroll_state = switch frame.motion {
        case .idle: LAZYIMG_SCROLL_IDLE
        case .dragging: LAZYIMG_SCROLL_DRAGGING
        case .decelerating: LAZYIMG_SCROLL_DECELERATING
        }
        var targetFirst = 0, targetCount = 0
        if usesScrollTarget, let resting = frame.restingPosition {
            targetFirst = Int(resting.rounded(.down))
            targetCount = visibleRows + (resting - resting.rounded(.down) > 0.001 ? 1 : 0)
        }
        return lazyimg_host_frame(host, Int32(bitPattern: state.rawValue), frame.velocity, visible.lowerBound,
                                  visible.count, targetFirst, targetCount)
    }

    func isShowingImage(row: Int) -> Bool {
        lazyimg_host_showing(host, row) != 0
    }

    func isShowingFinalImage(row: Int) -> Bool {
        lazyimg_host_showing_final(host, row) != 0
    }

    func finish() -> LoaderTally {
        guard !finished else { return LoaderTally() }
        finished = true
        let counted = lazyimg_host_finish(host)  // every open ticket's event runs here
        var tally = LoaderTally()
        tally.tickets = Int(counted.tickets)
        tally.ticketEvents = Int(counted.ticket_events)
        tally.unexpectedEvents = Int(counted.unexpected_events)
        tally.requestErrors = Int(counted.request_errors)
        tally.previews = Int(counted.previews)
        tally.usedScrollTarget = counted.used_scroll_target != 0
        return tally
    }
}
