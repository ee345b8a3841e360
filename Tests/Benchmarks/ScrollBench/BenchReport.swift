/// The benchmark's tables: one per trace, the hit cost, and the issue's goals.
public enum BenchReport {
    /// One row per loader, ratios against LazyTable's row.
    public static func traceTable(_ trace: ScrollTrace, _ runs: [TraceRun], rounds: Int) -> String {
        let settles = trace.frames.indices.dropFirst().filter {
            trace.frames[$0].motion == .idle && trace.frames[$0 - 1].motion != .idle
        }.count
        let lazyTable = runs.first { $0.loader == LoaderKind.lazyTable.rawValue }
        var table = TextTable(header: ["loader", "TTV p50", "p95", "p50/LT", "unfin", "blank rest", "blank all", "all/LT",
                                       "requests", "req/LT", "MB", "waste", "host p50", "p99", "cpu p99", "late"])
        table.add(["", "ms", "ms", "", "", "cell-fr", "cell-fr", "", "", "", "", "", "us", "us", "us", "frames"])
        for run in runs {
            let p50 = percentile(run.timeToVisible, 0.5)
            table.add([
                run.loader, fixed(p50, 0), fixed(percentile(run.timeToVisible, 0.95), 0),
                lazyTable.map { ratio(p50, percentile($0.timeToVisible, 0.5)) } ?? "-",
                String(run.unfinished), String(run.blankAtRest), String(run.blankOverall),
                lazyTable.map { ratio(Double(run.blankOverall), Double($0.blankOverall)) } ?? "-",
                String(run.requests), lazyTable.map { ratio(Double(run.requests), Double($0.requests)) } ?? "-",
                fixed(Double(run.bytes) / 1e6, 1), fixed(run.wasteFraction * 100, 0) + "%",
                fixed(Double(percentile(run.hostNanoseconds, 0.5)) / 1e3, 1),
                fixed(Double(percentile(run.hostNanoseconds, 0.99)) / 1e3, 1),
                fixed(Double(percentile(run.hostCPUNanoseconds, 0.99)) / 1e3, 1), String(run.lateFrames),
            ])
        }
        var text = "\(trace.name): \(fixed(trace.seconds, 1)) s, \(trace.frames.count) frames, \(settles) settle" + (settles == 1 ? "" : "s")
        text += rounds > 1 ? " x \(rounds) rounds\n" : "\n"
        text += table.render()
        for run in runs where run.loader.hasPrefix(LoaderKind.lazyimg.rawValue) {
            let t = run.tally
            text += "\n    \(run.loader): \(t.tickets) tickets, \(t.ticketEvents) events for them, \(t.unexpectedEvents) unexpected,"
            text += " \(t.requestErrors) request errors; lazyimg_set_scroll_target \(t.usedScrollTarget ? "called" : "not called")"
        }
        return text
    }

    /// Host time per frame by the frame's motion, per loader (--by-motion): which
    /// kind of frame the p50 and the p99 of the trace table come from.
    public static func motionTable(_ trace: ScrollTrace, _ runs: [TraceRun]) -> String {
        var table = TextTable(header: ["loader", "motion", "frames", "host p50", "p99", "max"])
        table.add(["", "", "", "us", "us", "us"])
        for run in runs {
            for motion in [ScrollFrame.Motion.idle, .dragging, .decelerating] {
                let times = zip(run.frameMotions, run.hostNanoseconds).filter { $0.0 == motion }.map(\.1)
                guard !times.isEmpty else { continue }
                table.add([run.loader, "\(motion)", String(times.count),
                           fixed(Double(percentile(times, 0.5)) / 1e3, 1), fixed(Double(percentile(times, 0.99)) / 1e3, 1),
                           fixed(Double(times.max() ?? 0) / 1e3, 1)])
            }
        }
        return "\(trace.name), host time by motion\n" + table.render()
    }

    public static func hitCostTable(_ cost: HitCost) -> String {
        var table = TextTable(header: ["call", "ns/call", "vs mutex"])
        table.add(["lazyimg_request, memory hit (+ release)", fixed(cost.requestHit, 1), ratio(cost.requestHit, cost.mutex)])
        table.add(["baseline: pthread mutex lock+unlock", fixed(cost.mutex, 1), "1.00"])
        table.add(["baseline: C-style hash lookup by URL", fixed(cost.hashLookup, 1), ratio(cost.hashLookup, cost.mutex)])
        return "memory hit: \(cost.rows) cached 64x64 images, best of 5, one thread\n" + table.render()
    }

    /// The issue's goals, each met or NOT met with its figure. `runs`: per trace name,
    /// the merged run of each loader.
    public static func goalsTable(_ runs: [String: [TraceRun]], hitCost: HitCost?) -> String {
        var table = TextTable(header: ["goal", "trace", "figure", "result"])
        func add(_ goal: String, _ trace: String, _ figure: String, _ met: Bool) {
            table.add([goal, trace, figure, met ? "met" : "NOT met"])
        }
        func find(_ trace: String, _ kind: LoaderKind) -> TraceRun? {
            runs[trace]?.first { $0.loader == kind.rawValue }
        }
        for trace in ["read-fling-read", "fling-reverse"] {
            guard let lazy = find(trace, .lazyimg) else { continue }
            if let table = find(trace, .lazyTable) {
                let mine = percentile(lazy.timeToVisible, 0.5), theirs = percentile(table.timeToVisible, 0.5)
                add("TTV p50 <= 1/3 of LazyTable's", trace,
                    "\(fixed(mine, 0)) vs \(fixed(theirs, 0)) ms (\(ratio(mine, theirs))x)", mine * 3 <= theirs)
            }
            add("waste < 15%", trace, fixed(lazy.wasteFraction * 100, 0) + "%", lazy.wasteFraction < 0.15)
        }
        if let lazy = find("slow-drag", .lazyimg) {
            if let eager = find("slow-drag", .eager) {
                add("blank cell-frames <= 2x eager's", "slow-drag",
                    "\(lazy.blankOverall) vs \(eager.blankOverall) (\(ratio(Double(lazy.blankOverall), Double(eager.blankOverall)))x)",
                    lazy.blankOverall <= 2 * eager.blankOverall)
            }
            add("waste < 15%", "slow-drag", fixed(lazy.wasteFraction * 100, 0) + "%", lazy.wasteFraction < 0.15)
        }
        if let lazy = find("jump-end", .lazyimg), let table = find("jump-end", .lazyTable) {
            let mine = percentile(lazy.timeToVisible, 0.5), theirs = percentile(table.timeToVisible, 0.5)
            add("TTV p50 no worse than LazyTable's", "jump-end", "\(fixed(mine, 0)) vs \(fixed(theirs, 0)) ms", mine <= theirs)
        }
        for trace in ScrollTraces.names {
            guard let lazy = find(trace, .lazyimg) else { continue }
            let p99 = Double(percentile(lazy.hostNanoseconds, 0.99)) / 1e3
            // Beside it, for scale: the same in CPU time, and LazyTable's, which does
            // next to nothing per frame.
            var figure = fixed(p99, 1) + " us (cpu " + fixed(Double(percentile(lazy.hostCPUNanoseconds, 0.99)) / 1e3, 1)
            if let table = find(trace, .lazyTable) {
                figure += "; LazyTable " + fixed(Double(percentile(table.hostNanoseconds, 0.99)) / 1e3, 1)
            }
            add("host time per frame p99 < 10 us", trace, figure + ")", p99 < 10)
        }
        if let cost = hitCost {
            add("memory hit <= 4x a mutex", "-", "\(fixed(cost.requestHit, 1)) vs \(fixed(cost.mutex, 1)) ns (\(ratio(cost.requestHit, cost.mutex))x)",
                cost.requestHit <= 4 * cost.mutex)
        }
        return "goals (issue 6), lazyimg in this run\n" + table.render()
    }
}
