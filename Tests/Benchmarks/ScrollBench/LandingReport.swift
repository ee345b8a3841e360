import LazyImgCore

/// The tables of the landing simulation: each family with the shipped constants,
/// and leave-one-family-out.
public enum LandingReport {
    public static func describe(_ c: LandingEstimate.Constants) -> String {
        "visibility \(fixed(c.visibility, 2)), budget \(fixed(c.wasteBudget, 2)), spread \(fixed(c.priorSpread, 2)),"
            + " due \(fixed(c.dueQuantile, 2)), prior \(fixed(c.priorFlings, 1)) flings"
    }

    private static func figures(_ r: LandingSimulation.Result) -> [String] {
        [fixed(percentile(r.timeToVisible, 0.5), 0), fixed(percentile(r.timeToVisible, 0.95), 0),
         fixed(r.wasteFraction * 100, 0) + "%", String(r.requests)]
    }

    /// Each family's traces of `seeds`, then each of `traces`, with the shipped
    /// constants.
    public static func simulationTable(_ families: [ToolkitFamily], seeds: [UInt64], traces: [ScrollTrace] = [],
                                       command: String) -> String {
        var table = TextTable(header: ["family", "TTV p50", "p95", "waste", "requests", "per sample p50", "p99"])
        table.add(["", "ms", "ms", "", "", "us", "us"])
        func add(_ label: String, _ merged: LandingSimulation.Result) {
            table.add([label] + figures(merged) + [fixed(Double(percentile(merged.sampleNanoseconds, 0.5)) / 1e3, 1),
                                                   fixed(Double(percentile(merged.sampleNanoseconds, 0.99)) / 1e3, 1)])
        }
        for family in families {
            var merged = LandingSimulation.Result()
            for seed in seeds { merged.merge(LandingSimulation.run(FlingSessions.trace(family, seed: seed), constants: .tuned)) }
            add(family.rawValue + (LandingTuning.heldOut.contains(family) ? " (held out)" : ""), merged)
        }
        for trace in traces { add(trace.name, LandingSimulation.run(trace, constants: .tuned)) }
        return "landing simulation (velocity only, downloads of \(fixed(LandingSimulation.Result.lazyTableMilliseconds, 0)) ms"
            + " = LazyTable's TTV), seeds \(seeds.map(String.init).joined(separator: ",")), constants: "
            + describe(.tuned) + "\n    reproduce: \(command)\n" + table.render()
    }

    public static func leaveOneOutTable(_ rows: [LandingTuning.HeldOutRow], command: String) -> String {
        var table = TextTable(header: ["held out", "TTV p50", "p95", "waste", "requests", "shipped: TTV p50", "p95", "waste",
                                       "requests", "constants fitted without it"])
        table.add(["", "ms", "ms", "", "", "ms", "ms", "", "", ""])
        for row in rows {
            table.add([row.family.rawValue] + figures(row.result) + figures(row.shipped) + [describe(row.constants)])
        }
        return "leave-one-family-out (fits on seeds \(LandingTuning.tuningSeeds.map(String.init).joined(separator: ",")),"
            + " judged on seeds \(FlingSessions.reportSeeds.map(String.init).joined(separator: ",")); shipped = "
            + describe(.tuned) + ", fitted without \(LandingTuning.heldOutNames))\n    reproduce: \(command)\n" + table.render()
    }
}
