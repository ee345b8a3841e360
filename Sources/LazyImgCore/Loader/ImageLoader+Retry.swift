/// Failed downloads that may succeed on a second try: back off, then try again, and
/// pause a host that keeps failing. Methods with `_` run with the state lock held.
extension ImageLoader {
    /// A download failed. A transient failure of a job with retries left sends it back
    /// to wait (its tickets keep waiting, no event yet); anything else ends its tickets.
    func _downloadDidFail(_ key: CacheKey, _ error: LoaderError, _ response: DataResponse,
                          in s: inout LoaderState) {
        let policy = configuration.retryPolicy
        let now = clock.nowMilliseconds
        guard RetryPolicy.isTransient(error) else {
            _fail(key, error, httpStatus: response.httpStatus, message: FailureMessage.describe(error, bytes: nil),
                  in: &s)
            return
        }
        if let pauseEnds = s.hostBackoff.recordFailure(of: key.url, now: now) {
            retryTimer.wake(afterMilliseconds: pauseEnds - now)
        }
        guard let job = s.jobs[key], job.retries < policy.maxRetries else {
            _fail(key, error, httpStatus: response.httpStatus, message: FailureMessage.describe(error, bytes: nil),
                  in: &s)
            return
        }
        let delay = policy.delay(beforeRetry: job.retries + 1,
                                 retryAfterMilliseconds: response.retryAfterMilliseconds, unit: jitter())
        s.jobs[key]?.retries += 1
        s.jobs[key]?.phase = .waiting
        s.jobs[key]?.notBefore = now.addingClamped(delay)
        s.stats.downloadsRetried += 1
        retryTimer.wake(afterMilliseconds: delay)
    }

    /// The retry timer's moment came: start what is due, and ask to be woken for the
    /// next job still waiting out a retry or a host's pause.
    func retryTimerDidFire() {
        let next: Int64? = state.withLock { s in
            guard !s.isShuttingDown else { return nil }
            // The pump forgot rows and requests it could not start yet: offer them again.
            for range in s.window.wantedRanges { s.toStart.insert(range) }
            for job in s.jobs.values where job.phase == .waiting { _requeue(job, in: &s) }
            _pump(in: &s)
            let now = clock.nowMilliseconds
            var next: Int64?
            for job in s.jobs.values where job.phase == .waiting {
                let due = max(job.notBefore, s.hostBackoff.pausedUntil(job.key.url, now: now) ?? .min)
                if due > now { next = min(next ?? .max, due - now) }
            }
            return next
        }
        if let next { retryTimer.wake(afterMilliseconds: next) }
    }
}

extension ImageLoader {
    /// Offers a waiting job to the pump again, after the pump took its rows out of
    /// `toStart` while it could not start (retry wait, host pause, disk read): its
    /// rows in the window go back there, anything else to the arrival order.
    func _requeue(_ job: Job, in s: inout LoaderState) {
        let window = s.window
        var queued = false
        for row in Array(job.tickets.rows) + (job.prefetchRow.map { [$0] } ?? [])
        where window.visible != nil && window.wants(row) {
            s.toStart.insert(row)
            queued = true
        }
        if !queued { s.arrivals.append(job.key) }
    }
}

extension Int64 {
    /// `self + other` without trapping.
    func addingClamped(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }
}
