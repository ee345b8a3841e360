import CLazyImgHeader
import Glibc

/// lazyimg as a C host uses it: a loader made through the C API with host delivery,
/// cells that hold a +1 image or a ticket, and per frame set_scroll_state (plus
/// set_scroll_target when a fling or animated scroll announces its resting place and
/// the library has the call), set_visible_range, lazyimg_request for each row that
/// appeared, and one lazyimg_dispatch.
final class LazyImgListLoader: ListLoader {
    private var loader: OpaquePointer?
    private let scrollTarget: ScrollTargetCall?
    private let visibleRows: Int
    /// Per row, while its cell is on screen: the image it shows (+1) or the ticket it waits for.
    private var cellImage: [OpaquePointer?]
    private var cellTicket: [UInt64]
    /// Per row: whether its image is a preview, its final image still to come.
    private var cellIsPreview: [Bool]
    private var onScreen: Range<Int> = 0..<0
    /// Visible rows whose ticket was cancelled: asked again next frame, as a cell would.
    private var askAgain: [Int] = []
    /// Per ticket number, whether it waits for its event: the check of the
    /// exactly-once contract. lazyimg numbers a loader's tickets 1, 2, 3..., so an
    /// array is enough, and costs the frame what a C host's cell bookkeeping would
    /// (a set of tickets was a sixth of the frame's instructions, in hashing).
    private var ticketOpen = [Bool](repeating: false, count: 1 << 14)
    /// Beyond this a ticket number is not lazyimg's counting: a request error.
    private static let maxTicket: UInt64 = 1 << 24
    private var tally = LoaderTally()

    /// Defaults except the cell's box, which every loader in the benchmark decodes to.
    init(urls: [String], visibleRows: Int, box: Int, useScrollTarget: Bool = true,
         fetchesFirstPassOnly: Bool = true, previewIntervalMilliseconds: Int = 0) throws(BenchError) {
        self.visibleRows = visibleRows
        scrollTarget = useScrollTarget ? ScrollTargetCall.available : nil
        cellImage = Array(repeating: nil, count: urls.count)
        cellTicket = Array(repeating: 0, count: urls.count)
        cellIsPreview = Array(repeating: false, count: urls.count)
        var config = lazyimg_config()
        lazyimg_config_init(&config)
        config.target_width = UInt32(box)
        config.target_height = UInt32(box)
        config.fetch_first_pass_only = fetchesFirstPassOnly ? 1 : 0
        config.preview_interval_ms = UInt32(previewIntervalMilliseconds)
        config.user_data = Unmanaged.passUnretained(self).toOpaque()
        config.on_event = { userData, event in
            guard let userData, let event else { return }
            Unmanaged<LazyImgListLoader>.fromOpaque(userData).takeUnretainedValue().handle(event.pointee)
        }
        var created: OpaquePointer?
        let status = lazyimg_loader_create(&config, &created)
        guard status == LAZYIMG_OK, let created else {
            throw .setup("lazyimg_loader_create: \(String(cString: lazyimg_strerror(status)))")
        }
        loader = created
        let copies = urls.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        let rows = copies.map { UnsafePointer($0) }
        let itemsStatus = rows.withUnsafeBufferPointer { lazyimg_set_items(created, $0.baseAddress, $0.count) }
        guard itemsStatus == LAZYIMG_OK else {
            throw .setup("lazyimg_set_items: \(String(cString: lazyimg_strerror(itemsStatus)))")
        }
    }

    func frame(_ frame: ScrollFrame, visible: Range<Int>, appeared: [Int]) {
        let state: lazyimg_scroll_state = switch frame.motion {
        case .idle: LAZYIMG_SCROLL_IDLE
        case .dragging: LAZYIMG_SCROLL_DRAGGING
        case .decelerating: LAZYIMG_SCROLL_DECELERATING
        }
        _ = lazyimg_set_scroll_state(loader, state, frame.velocity)
        if let resting = frame.restingPosition, let scrollTarget {
            let first = Int(resting.rounded(.down))
            let cut = resting - resting.rounded(.down) > 0.001 ? 1 : 0
            _ = scrollTarget(loader, first: first, count: visibleRows + cut)
            tally.usedScrollTarget = true
        }
        _ = lazyimg_set_visible_range(loader, visible.lowerBound, visible.count)
        for row in onScreen where !visible.contains(row) {
            // The cell is reused: it lets go of its image and forgets its ticket.
            lazyimg_image_release(cellImage[row])
            cellImage[row] = nil
            cellTicket[row] = 0
            cellIsPreview[row] = false
        }
        onScreen = visible
        for row in appeared { request(row) }
        if !askAgain.isEmpty {
            let rows = askAgain
            askAgain.removeAll()
            for row in rows where visible.contains(row) && cellImage[row] == nil && cellTicket[row] == 0 {
                request(row)
            }
        }
        _ = lazyimg_dispatch(loader, 0)
    }

    private func request(_ row: Int) {
        var image: OpaquePointer?
        var ticket: UInt64 = 0
        let status = lazyimg_request(loader, row, &image, &ticket)
        switch status {
        case LAZYIMG_OK:
            cellImage[row] = image
        case LAZYIMG_PENDING, LAZYIMG_DEFERRED:
            guard ticket < Self.maxTicket else {
                tally.requestErrors += 1
                return
            }
            cellTicket[row] = ticket
            if Int(ticket) >= ticketOpen.count {
                ticketOpen += repeatElement(false, count: max(Int(ticket) + 1 - ticketOpen.count, ticketOpen.count))
            }
            ticketOpen[Int(ticket)] = true
            tally.tickets += 1
        default:
            tally.requestErrors += 1
        }
    }

    /// The event callback, inside lazyimg_dispatch (or lazyimg_loader_destroy).
    private func handle(_ event: lazyimg_event) {
        if event.type == LAZYIMG_EVENT_PREVIEW {
            return showPreview(event)
        }
        guard isOpen(event.ticket) else {
            tally.unexpectedEvents += 1
            return
        }
        ticketOpen[Int(event.ticket)] = false
        tally.ticketEvents += 1
        let row = event.row
        guard onScreen.contains(row), cellTicket[row] == event.ticket else { return }  // a reused cell: stale
        cellTicket[row] = 0
        if event.type == LAZYIMG_EVENT_IMAGE {
            lazyimg_image_release(cellImage[row])
            cellImage[row] = lazyimg_image_retain(event.image)
        } else if event.status == LAZYIMG_E_CANCELLED {
            lazyimg_image_release(cellImage[row])
            cellImage[row] = nil
            askAgain.append(row)
        }
        cellIsPreview[row] = false
    }

    /// The cell shows the preview until its ticket's final event replaces it.
    private func showPreview(_ event: lazyimg_event) {
        guard isOpen(event.ticket) else {
            tally.unexpectedEvents += 1
            return
        }
        tally.previews += 1
        let row = event.row
        guard onScreen.contains(row), cellTicket[row] == event.ticket else { return }
        lazyimg_image_release(cellImage[row])
        cellImage[row] = lazyimg_image_retain(event.image)
        cellIsPreview[row] = true
    }

    private func isOpen(_ ticket: UInt64) -> Bool {
        ticket < ticketOpen.count && ticketOpen[Int(ticket)]
    }

    func isShowingImage(row: Int) -> Bool {
        onScreen.contains(row) && cellImage[row] != nil
    }

    func isShowingFinalImage(row: Int) -> Bool {
        isShowingImage(row: row) && !cellIsPreview[row]
    }

    func finish() -> LoaderTally {
        _ = lazyimg_loader_destroy(loader)  // every open ticket's event runs here
        loader = nil
        for row in onScreen { lazyimg_image_release(cellImage[row]) }
        cellImage = []
        return tally
    }
}
