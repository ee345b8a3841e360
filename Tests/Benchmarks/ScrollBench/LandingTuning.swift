import LazyImgCore

/// Fits `LandingEstimate.Constants` by grid search on the landing simulation, and
/// reports leave-one-family-out: for each family, the constants fitted on the other
/// families' tuning seeds, judged on its report seeds, which no fit ever used.
public enum LandingTuning {
    /// The seeds the fits use; `FlingSessions.reportSeeds` are never tuned on.
    public static let tuningSeeds: [UInt64] = [1, 2, 3, 4, 5, 6]
    /// The families left out of the fit that set `LandingEstimate.Constants.tuned`
    /// (chromium came after it, and was never in sight of any): bench-scroll reports
    /// them as held out.
    public static let heldOut: [ToolkitFamily] = [.flutter, .chromium]
    public static var heldOutNames: String { heldOut.map(\.rawValue).joined(separator: " and ") }

    /// The candidates: around what the design argues for, and within what the
    /// policy tests require of a first fling with nothing learned (a budget of a
    /// fraction of a screen; a start due once about a third of the weight rests
    /// within the lead, not a second early where a catch wastes it; a prior spread
    /// of 0.4: at 0.6 a first exponential fling no longer starts all its resting
    /// rows, at 0.3 a learned Android fling misses its last row and a first fling
    /// cancels and restarts a resting row), so no fit can buy one family's figures
    /// with constants only it would choose.
    static let grid: [LandingEstimate.Constants] = {
        var all: [LandingEstimate.Constants] = []
        for visibility in [0.2, 0.3, 0.4] {
            for budget in [0.25, 0.5, 1.0] {
                for spread in [0.4] {
                    for due in [0.3, 0.4] {
                        for prior in [0.5, 1.0] {
                            all.append(.init(visibility: visibility, wasteBudget: budget, priorSpread: spread,
                                             dueQuantile: due, priorFlings: prior))
                        }
                    }
                }
            }
        }
        return all
    }()

    /// What a fit minimises over a set of traces: mostly how far each trace misses
    /// the goals (TTV p50 a quarter of LazyTable's, waste 10%: a margin under the
    /// goals' third and 15%), and a little the mean TTV and waste themselves; a trace
    /// counts once whatever its length.
    static func loss(_ results: [LandingSimulation.Result]) -> Double {
        let lazyTable = LandingSimulation.Result.lazyTableMilliseconds
        return results.reduce(0) { sum, r in
            let p50 = percentile(r.timeToVisible, 0.5) / lazyTable
            let mean = r.timeToVisible.isEmpty ? 0 : r.timeToVisible.reduce(0, +) / Double(r.timeToVisible.count) / lazyTable
            return sum + 10 * max(0, p50 - 0.25) + 10 * max(0, r.wasteFraction - 0.1) + 0.5 * (mean + r.wasteFraction)
        } / Double(max(1, results.count))
    }

    static func traces(_ families: [ToolkitFamily], seeds: [UInt64]) -> [ScrollTrace] {
        families.flatMap { family in seeds.map { FlingSessions.trace(family, seed: $0) } }
    }

    /// The grid's best constants on `families`' tuning seeds.
    public static func fit(_ families: [ToolkitFamily]) -> LandingEstimate.Constants {
        let training = traces(families, seeds: tuningSeeds)
        var best = grid[0], bestLoss = Double.infinity
        for constants in grid {
            let loss = loss(training.map { LandingSimulation.run($0, constants: constants) })
            if loss < bestLoss { (best, bestLoss) = (constants, loss) }
        }
        return best
    }

    public struct HeldOutRow: Sendable {
        public let family: ToolkitFamily
        public let constants: LandingEstimate.Constants
        public let result: LandingSimulation.Result
        /// The same family with the shipped constants.
        public let shipped: LandingSimulation.Result
    }

    /// Leave-one-family-out over `families` (each fit uses the others among them).
    public static func leaveOneOut(_ families: [ToolkitFamily]) -> [HeldOutRow] {
        families.map { family in
            let constants = fit(families.filter { $0 != family })
            var result = LandingSimulation.Result(), shipped = LandingSimulation.Result()
            for trace in traces([family], seeds: FlingSessions.reportSeeds) {
                result.merge(LandingSimulation.run(trace, constants: constants))
                shipped.merge(LandingSimulation.run(trace, constants: .tuned))
            }
            return HeldOutRow(family: family, constants: constants, result: result, shipped: shipped)
        }
    }
}
