/// The benchmark's tables: one per trace, the hit cost, and the issue's goals.
public enum BenchReport {
    /// What the tables say of `--busy-threads`.
    public static func busyNote(_ busyThreads: Int) -> String {
        busyThreads == 0 ? "" : "\(busyThreads) busy thread\(busyThreads == 1 ? "" : "s") at the UI thread's priority"
    }

    /// One row per loader, ratios against LazyTable's row.
    public static func traceTable(_ trace: ScrollTrace, _ runs: [TraceRun], rounds: Int, busyThreads: Int = 0,
                                  command: String) -> String {
        let settles = trace.frames.indices.dropFirst().filter {
            trace.frames[$0].motion == .idle && trace.frames[$0 - 1].motion != .idle
        }.count
        let lazyTable = runs.first { $0.loader == LoaderKind.lazyTable.rawValue }
        var table = TextTable(header: ["loader", "TTV p50", "p95", "p50/LT", "unfin", "blank rest", "blank all", "all/LT",
                                       "requests", "req/LT", "206", "MB", "KiB/img", "/LT", "waste", "host p50", "p99", "cpu p99",
                                       "late"])
        table.add(["", "ms", "ms", "", "", "cell-fr", "cell-fr", "", "", "", "", "", "shown", "", "", "us", "us", "us",
                   "frames"])
        for run in runs {
            let p50 = percentile(run.timeToVisible, 0.5)
            table.add([
                run.loader, fixed(p50, 0), fixed(percentile(run.timeToVisible, 0.95), 0),
                lazyTable.map { ratio(p50, percentile($0.timeToVisible, 0.5)) } ?? "-",
                String(run.unfinished), String(run.blankAtRest), String(run.blankOverall),
                lazyTable.map { ratio(Double(run.blankOverall), Double($0.blankOverall)) } ?? "-",
                String(run.requests), lazyTable.map { ratio(Double(run.requests), Double($0.requests)) } ?? "-",
                String(run.resumed), fixed(Double(run.bytes) / 1e6, 1), fixed(run.kibibytesPerShownImage, 1),
                lazyTable.map { ratio(run.kibibytesPerShownImage, $0.kibibytesPerShownImage) } ?? "-",
                fixed(run.wasteFraction * 100, 0) + "%",
                fixed(Double(percentile(run.hostNanoseconds, 0.5)) / 1e3, 1),
                fixed(Double(percentile(run.hostNanoseconds, 0.99)) / 1e3, 1),
                fixed(Double(percentile(run.hostCPUNanoseconds, 0.99)) / 1e3, 1), String(run.lateFrames),
            ])
        }
        var text = "\(trace.name): \(fixed(trace.seconds, 1)) s, \(trace.frames.count) frames, \(settles) settle" + (settles == 1 ? "" : "s")
        text += ", \(trace.visibleRows) rows on screen" + (rounds > 1 ? " x \(rounds) rounds" : "")
        text += (busyThreads > 0 ? ", every loader with \(busyNote(busyThreads)) through its run\n" : "\n")
        text += "    reproduce: \(command)\n" + table.render()
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

    public static func hitCostTable(_ cost: HitCost, command: String) -> String {
        var table = TextTable(header: ["call", "ns/call", "vs mutex"])
        table.add(["lazyimg_request, memory hit (+ release)", fixed(cost.requestHit, 1), ratio(cost.requestHit, cost.mutex)])
        table.add(["baseline: pthread mutex lock+unlock", fixed(cost.mutex, 1), "1.00"])
        table.add(["baseline: C-style hash lookup by URL", fixed(cost.hashLookup, 1), ratio(cost.hashLookup, cost.mutex)])
        return "memory hit: \(cost.rows) cached 64x64 images, best of 5, one thread\n    reproduce: \(command)\n"
            + table.render()
    }

    /// Keys of the runs on the slow link, in the runs given to `goalsTable`.
    public static let slowLinkPrefix = "slow-link:"

    /// The goals (issue 19), each met or NOT met with its figure. `runs`: per trace
    /// name (slow-link runs under `slowLinkPrefix`), the merged run of each loader.
    public static func goalsTable(_ runs: [String: [TraceRun]], hitCost: HitCost?, busyThreads: Int = 0,
                                  command: String) -> String {
        var table = TextTable(header: ["goal", "trace", "figure", "result"])
        func add(_ goal: String, _ trace: String, _ figure: String, _ met: Bool) {
            table.add([goal, trace, figure, met ? "met" : "NOT met"])
        }
        func find(_ trace: String, _ kind: LoaderKind) -> TraceRun? {
            runs[trace]?.first { $0.loader == kind.rawValue }
        }
        /// The runs of `kind` over every trace `matching`, merged.
        func merged(_ kind: LoaderKind, _ matching: (String) -> Bool) -> TraceRun? {
            runs.keys.sorted().filter(matching).compactMap { find($0, kind) }.reduce(nil) { sum, run in
                guard var sum else { return run }
                sum.merge(run)
                return sum
            }
        }
        func ttv(_ goal: String, _ label: String, _ kind: LoaderKind, fraction: Double, _ matching: (String) -> Bool) {
            guard let lazy = merged(kind, matching), let table = merged(.lazyTable, matching) else { return }
            let mine = percentile(lazy.timeToVisible, 0.5), theirs = percentile(table.timeToVisible, 0.5)
            add(goal, label, "\(fixed(mine, 0)) vs \(fixed(theirs, 0)) ms (\(ratio(mine, theirs))x)", mine <= theirs * fraction)
        }
        func waste(_ goal: String, _ label: String, _ kind: LoaderKind, below limit: Double, _ matching: (String) -> Bool) {
            guard let lazy = merged(kind, matching) else { return }
            add(goal, label, fixed(lazy.wasteFraction * 100, 1) + "% of \(lazy.requests)", lazy.wasteFraction < limit)
        }
        func family(_ key: String) -> ToolkitFamily? {
            key.hasPrefix(slowLinkPrefix) ? nil : FlingSessions.parse(key)?.family
        }
        for f in ToolkitFamily.toolkits {
            let label = f.rawValue + (LandingTuning.heldOut.contains(f) ? " (held out)" : "")
            ttv("velocity only: TTV p50 <= 1/3 of LazyTable's", label, .lazyimgWithoutTarget, fraction: 1.0 / 3) { family($0) == f }
            waste("velocity only: waste < 15%", label, .lazyimgWithoutTarget, below: 0.15) { family($0) == f }
        }
        // Very fast flings that snap to rest: the generated family, the fixed trace
        // of 50-80 screens/s snapping at 3, and the other fixed traces' UIKit flings
        // (12-40 screens/s, resting below 2 screens/s).
        let fast: [(String, (String) -> Bool)] = [
            (ToolkitFamily.uikitSnap.rawValue, { family($0) == .uikitSnap }),
            ("fast-read-fling-read", { $0 == "fast-read-fling-read" }),
            ("read-fling-read", { $0 == "read-fling-read" }), ("fling-reverse", { $0 == "fling-reverse" }),
            ("long-session", { $0 == "long-session" }),
        ]
        for (label, matching) in fast {
            ttv("velocity only, fast flings: TTV p50 <= 1/3 of LazyTable's", label, .lazyimgWithoutTarget, fraction: 1.0 / 3,
                matching)
            waste("velocity only, fast flings: waste < 20%", label, .lazyimgWithoutTarget, below: 0.2, matching)
        }
        // With the host's target: each family's sessions and each fixed trace that
        // calls it, then all of them.
        for f in ToolkitFamily.allCases {
            waste("with the host's target: waste < 10%", f.rawValue, .lazyimg, below: 0.1) { family($0) == f }
        }
        for trace in ScrollTraces.names where find(trace, .lazyimg)?.tally.usedScrollTarget == true {
            waste("with the host's target: waste < 10%", trace, .lazyimg, below: 0.1) { $0 == trace }
        }
        waste("with the host's target: waste < 10%", "every trace", .lazyimg, below: 0.1) { !$0.hasPrefix(slowLinkPrefix) }
        for key in runs.keys.sorted() where key.hasPrefix(slowLinkPrefix) {
            let label = "4 MB/s link, " + key.dropFirst(slowLinkPrefix.count)
            ttv("velocity only: TTV p50 <= 1/2 of LazyTable's", label, .lazyimgWithoutTarget, fraction: 0.5) { $0 == key }
            ttv("with the host's target: TTV p50 <= 1/2 of LazyTable's", label, .lazyimg, fraction: 0.5) { $0 == key }
        }
        for kind in [LoaderKind.lazyimg, .lazyimgWithoutTarget] {
            ttv("TTV p50 no worse than LazyTable's (\(kind.rawValue))", "jump-end", kind, fraction: 1) { $0 == "jump-end" }
        }
        if let lazy = find("slow-drag", .lazyimgWithoutTarget), let eager = find("slow-drag", .eager) {
            add("blank cell-frames <= 2x eager's", "slow-drag",
                "\(lazy.blankOverall) vs \(eager.blankOverall) (\(ratio(Double(lazy.blankOverall), Double(eager.blankOverall)))x)",
                lazy.blankOverall <= 2 * eager.blankOverall)
        }
        // Host time per frame against LazyTable's lean frame (issue 19 section A), both
        // under the same busy threads when there are any.
        let load = busyThreads > 0 ? ", \(busyNote(busyThreads))" : ""
        for key in runs.keys.sorted() {
            guard let table = find(key, .lazyTable) else { continue }
            for kind in [LoaderKind.lazyimg, .lazyimgWithoutTarget] {
                guard let lazy = find(key, kind) else { continue }
                for (name, fraction, limit) in [("p50", 0.5, 2.0), ("p99", 0.99, 5.0)] {
                    let mine = Double(percentile(lazy.hostNanoseconds, fraction)) / 1e3
                    let theirs = Double(percentile(table.hostNanoseconds, fraction)) / 1e3
                    add("host time per frame \(name) <= \(fixed(limit, 0))x LazyTable's (\(kind.rawValue)\(load))", key,
                        "\(fixed(mine, 1)) vs \(fixed(theirs, 1)) us (\(ratio(mine, theirs))x)", mine <= limit * theirs)
                }
            }
        }
        if let cost = hitCost {
            add("memory hit <= 4x a mutex", "-", "\(fixed(cost.requestHit, 1)) vs \(fixed(cost.mutex, 1)) ns (\(ratio(cost.requestHit, cost.mutex))x)",
                cost.requestHit <= 4 * cost.mutex)
        }
        return "goals (issue 19), in this run" + (busyThreads > 0 ? ", every run with \(busyNote(busyThreads))" : "")
            + "\n    reproduce: \(command)\n" + table.render()
    }
}
