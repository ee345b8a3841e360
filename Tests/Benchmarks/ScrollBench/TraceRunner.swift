/// Replays a trace against a loader in real time, one frame per display refresh (the network
/// is real, so the frames must be too), and measures what the cells showed.
struct TraceRunner {
    let trace: ScrollTrace
    let server: SiteServer

    private static var frameNanoseconds: Int64 { Int64(1e9 / ScrollTrace.framesPerSecond) }

    /// Runs the whole trace, then finishes the loader and reads the server's counters
    /// of `run` (the run number in the loader's URLs).
    func run(_ loader: ListLoader, named name: String, run: Int) -> TraceRun {
        var result = TraceRun(trace: trace.name, loader: name)
        result.hostNanoseconds.reserveCapacity(trace.frames.count)
        result.hostCPUNanoseconds.reserveCapacity(trace.frames.count)
        result.frameMotions.reserveCapacity(trace.frames.count)
        var shownEver = [Bool](repeating: false, count: trace.rows)
        var previousVisible = 0..<0
        var previousMotion = ScrollFrame.Motion.idle
        var settledAt: Int64?
        /// The same settle, until every visible row shows its final image.
        var settledForFinalAt: Int64?
        /// Before the list first moves: the first screen's load.
        var firstScreen = true
        var frameStart: Int64 = 0
        let start = monotonicNanoseconds()
        for (index, frame) in trace.frames.enumerated() {
            let tick = start + Int64(index) * Self.frameNanoseconds
            sleep(untilNanoseconds: tick)
            frameStart = monotonicNanoseconds()
            if frameStart - tick > Self.frameNanoseconds { result.lateFrames += 1 }

            let visible = trace.visibleRange(at: frame.position)
            let appeared = visible.filter { !previousVisible.contains($0) }
            // The wall time is the loader's own, read around its calls (`ListLoader.frame`);
            // the thread's CPU clock is a system call (the monotonic clock is not), and
            // inside the wall interval that call alone measured 7 us at p50 and up to
            // 100 us at p99 around an empty frame.
            let cpuBefore = threadCPUNanoseconds()
            let wall = loader.frame(frame, visible: visible, appeared: appeared)
            result.hostCPUNanoseconds.append(threadCPUNanoseconds() - cpuBefore)
            result.hostNanoseconds.append(wall)
            result.frameMotions.append(frame.motion)
            previousVisible = visible

            var blank = 0, notFinal = 0
            for row in visible {
                if loader.isShowingImage(row: row) { shownEver[row] = true } else { blank += 1 }
                if !loader.isShowingFinalImage(row: row) { notFinal += 1 }
            }
            result.blankOverall += blank
            if frame.motion != .idle { firstScreen = false }
            if firstScreen {
                let elapsed = Double(frameStart - start) / 1e6
                if blank == 0, result.firstScreenShown.isEmpty { result.firstScreenShown.append(elapsed) }
                if notFinal == 0, result.firstScreenFinal.isEmpty { result.firstScreenFinal.append(elapsed) }
            }
            if frame.motion == .idle {
                result.blankAtRest += blank
                result.notFinalAtRest += notFinal
                if previousMotion != .idle { (settledAt, settledForFinalAt) = (frameStart, frameStart) }
                if let settled = settledAt, blank == 0 {
                    result.timeToVisible.append(Double(frameStart - settled) / 1e6)
                    settledAt = nil
                }
                if let settled = settledForFinalAt, notFinal == 0 {
                    result.timeToFinal.append(Double(frameStart - settled) / 1e6)
                    settledForFinalAt = nil
                }
            } else {
                if let settled = settledAt {
                    result.timeToVisible.append(Double(frameStart - settled) / 1e6)
                    result.unfinished += 1
                    settledAt = nil
                }
                if let settled = settledForFinalAt {
                    result.timeToFinal.append(Double(frameStart - settled) / 1e6)
                    result.unfinishedFinal += 1
                    settledForFinalAt = nil
                }
            }
            previousMotion = frame.motion
        }
        if let settled = settledAt {
            result.timeToVisible.append(Double(frameStart - settled) / 1e6)
            result.unfinished += 1
        }
        if let settled = settledForFinalAt {
            result.timeToFinal.append(Double(frameStart - settled) / 1e6)
            result.unfinishedFinal += 1
        }
        result.tally = loader.finish()
        let counters = server.counters(run: run)
        result.requests = counters.requests
        result.bytes = counters.bytesSent
        result.resumed = counters.ranged
        result.shownRows = shownEver.filter { $0 }.count
        result.wastedRequests = counters.requestsByRow.reduce(0) { sum, entry in
            entry.key < shownEver.count && shownEver[entry.key] ? sum : sum + entry.value
        }
        for (row, arrived) in counters.arrivals where !(row < shownEver.count && shownEver[row]) {
            let index = min(max(0, Int((arrived - start) / Self.frameNanoseconds)), trace.frames.count - 1)
            let frame = trace.frames[index]
            result.wastedRequestLog.append(WastedRequest(frame: index, motion: frame.motion, velocity: frame.velocity,
                                                         visible: trace.visibleRange(at: frame.position), row: row))
        }
        return result
    }
}
