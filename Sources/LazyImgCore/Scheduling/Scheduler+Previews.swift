/// Previews (`LoaderConfiguration.previewIntervalMilliseconds`): a download's body so
/// far, when its scans make a picture (`ReceivedPrefix`), decoded at the box and
/// handed to the tickets of visible and landing rows, while the job still downloads.
///
/// They are never cached, and never come after a ticket's one event: a preview
/// decoded once the download ended (its final decode queued) is dropped, and the
/// runner drops one for a ticket the host ended meanwhile.
extension Scheduler {
    func prefixDidArrive(_ prefix: ReceivedPrefix, of transfer: TransferID) {
        let interval = Int64(configuration.previewIntervalMilliseconds)
        guard interval > 0, let key = jobByTransfer[transfer], let job = jobs[key],
              job.phase == .downloading(transfer), job.previews.admits(stage: prefix.stage, now: now, interval: interval),
              job.tickets.rows.contains(where: showsPreviews) else { return }
        withJob(key) { $0.previews.began(stage: prefix.stage, now: now) }
        effects.append(.decodePreview(job: job.id, key: key, bytes: prefix.bytes))
    }

    func previewDidDecode(_ image: DecodedImage?, job jobID: UInt64, key: CacheKey) {
        guard let job = jobs[key], job.id == jobID else { return }
        withJob(key) { $0.previews.decodeEnded() }
        guard let image, case .downloading = job.phase else { return }
        for ticket in job.tickets.sorted(by: { $0.id < $1.id }) where showsPreviews(ticket.row) {
            effects.append(.preview(LoaderEvent(ticket: ticket.id, row: ticket.row, url: key.url,
                                                outcome: .preview(image), httpStatus: 200)))
        }
    }

    /// Rows on screen, or where the list comes to rest: a preview elsewhere would
    /// spend a decode on a picture nobody sees.
    private func showsPreviews(_ row: Int) -> Bool {
        guard let visible = window.visible else { return true }
        return visible.contains(row) || window.landing.contains(row)
    }
}
