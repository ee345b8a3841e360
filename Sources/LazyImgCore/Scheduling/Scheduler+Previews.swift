/// Previews (`LoaderConfiguration.previewIntervalMilliseconds`): a download's body so
/// far, when its scans or passes make a picture (`ReceivedPrefix`), decoded at the
/// box and handed to the tickets of visible and landing rows, while the job still
/// downloads.
///
/// They are never cached, and never come after a ticket's one event: a preview
/// decoded once the download ended (its final decode queued) is dropped, and the
/// runner drops one for a ticket the host ended meanwhile.
extension Scheduler {
    func prefixDidArrive(_ prefix: ReceivedPrefix, of transfer: TransferID) {
        guard let key = jobByTransfer[transfer], jobs[key]?.phase == .downloading(transfer) else { return }
        consider(prefix, for: key)
    }

    func previewDidDecode(_ image: DecodedImage?, passes: Int, job jobID: UInt64, key: CacheKey) {
        guard let job = jobs[key], job.id == jobID else { return }
        withJob(key) { $0.previews.decodeEnded(showing: image == nil ? nil : passes) }
        guard case .downloading = job.phase else { return }
        if let image {
            for ticket in job.tickets.sorted(by: { $0.id < $1.id }) where showsPreviews(ticket.row) {
                effects.append(.preview(LoaderEvent(ticket: ticket.id, row: ticket.row, url: key.url,
                                                    outcome: .preview(image), httpStatus: 200)))
            }
        }
        if let waiting = withJob(key, { $0.previews.takeWaiting() }) ?? nil { consider(waiting, for: key) }
    }

    /// The timer: prefixes that waited out their download's interval.
    func considerWaitingPreviews() {
        for key in jobs.compactMap({ $0.value.previews.hasWaitingPrefix ? $0.key : nil }) {
            if let waiting = withJob(key, { $0.previews.takeWaiting() }) ?? nil { consider(waiting, for: key) }
        }
    }

    /// Queues the decode of a downloading job's prefix if the throttle and its rows
    /// allow it, or keeps it for when they may.
    private func consider(_ prefix: ReceivedPrefix, for key: CacheKey) {
        let interval = Int64(configuration.previewIntervalMilliseconds)
        guard interval > 0, let job = jobs[key], case .downloading = job.phase,
              job.tickets.rows.contains(where: showsPreviews) else { return }
        switch withJob(key, { $0.previews.admit(prefix, now: now, interval: interval) }) {
        case .decode:
            withJob(key) { $0.previews.began(stage: prefix.stage, now: now) }
            effects.append(.decodePreview(job: job.id, key: key, bytes: prefix.bytes,
                                          passesShown: job.previews.passes))
        case .wait(let until?):
            wake(at: until)
        case .wait(nil), .drop, nil:
            break
        }
    }

    /// Rows on screen, or where the list comes to rest: a preview elsewhere would
    /// spend a decode on a picture nobody sees.
    private func showsPreviews(_ row: Int) -> Bool {
        guard let visible = window.visible else { return true }
        return visible.contains(row) || window.landing.contains(row)
    }
}
