import Glibc
import ScrollBench

// lazyimg-bench-scroll: replays scroll traces at 60 Hz against lazyimg (through its C
// API, as a UI calls it) and against three baseline loaders on the same transport and
// decoder, over a loopback site with a per-response delay and a bandwidth cap, and
// prints a table per trace, the memory-hit cost and the issue-6 goals.
//
//   lazyimg-bench-scroll [--traces a,b,...] [--loaders a,b,...] [--rounds N]
//                        [--delay-ms MS] [--mbps N] [--photos DIR] [--no-hit-cost]
//                        [--waste-rows] [--by-motion]
//
// A benchmark, not a test: it reports figures and never judges them by its exit code.

func fail(_ message: String) -> Never {
    let line = "lazyimg-bench-scroll: \(message)\n"
    _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
    exit(2)
}

let usage = """
    usage: lazyimg-bench-scroll [--traces \(ScrollTraces.names.joined(separator: ","))]
                                [--loaders \(LoaderKind.allCases.map(\.rawValue).joined(separator: ","))]
                                [--rounds N] [--delay-ms MS (40)] [--mbps N (200; 0 = no cap)]
                                [--photos DIR (../shared/corpus/photos)] [--no-hit-cost]
                                [--waste-rows (lazyimg's wasted requests, each with the frame it came in)]
                                [--by-motion (host time per frame at rest, dragged and decelerating)]
    """

var traceNames = ScrollTraces.names
var kinds = LoaderKind.standard
var rounds = 1, delayMilliseconds = 40
var megabitsPerSecond = 200.0
var photos = "../shared/corpus/photos"
var measureHitCost = true
var printWastedRows = false
var printByMotion = false
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--traces":
        traceNames = arguments.popFirst()?.split(separator: ",").map(String.init) ?? []
        guard !traceNames.isEmpty, traceNames.allSatisfy(ScrollTraces.names.contains) else { fail(usage) }
    case "--loaders":
        let parsed = arguments.popFirst()?.split(separator: ",").map { LoaderKind(rawValue: String($0)) } ?? []
        guard !parsed.isEmpty, !parsed.contains(nil) else { fail(usage) }
        kinds = parsed.compactMap { $0 }
    case "--rounds":
        guard let value = arguments.popFirst().flatMap(Int.init), (1...20).contains(value) else { fail(usage) }
        rounds = value
    case "--delay-ms":
        guard let value = arguments.popFirst().flatMap(Int.init), (0...5_000).contains(value) else { fail(usage) }
        delayMilliseconds = value
    case "--mbps":
        guard let value = arguments.popFirst().flatMap(Double.init), value >= 0 else { fail(usage) }
        megabitsPerSecond = value
    case "--photos":
        guard let value = arguments.popFirst() else { fail(usage) }
        photos = value
    case "--no-hit-cost":
        measureHitCost = false
    case "--waste-rows":
        printWastedRows = true
    case "--by-motion":
        printByMotion = true
    default:
        fail(usage)
    }
}

// Bounded: whatever happens, the process (and with it the server) ends.
alarm(900)

let started = time(nil)
do {
    let images = try SiteImages.make(photosDirectory: photos)
    let bench = try ScrollBenchmark(images: images, delayMilliseconds: delayMilliseconds,
                                    bytesPerSecond: Int(megabitsPerSecond * 1e6 / 8))
    defer { bench.stop() }
    print("scroll benchmark: \(ScrollTraces.rows) rows, \(ScrollTraces.visibleRows) visible, 60 Hz, cells of \(bench.box)x\(bench.box)")
    print("site: \(images.origin), \(images.averageBytes / 1024) KiB average; 127.0.0.1, \(delayMilliseconds) ms per response, "
          + (megabitsPerSecond > 0 ? "\(megabitsPerSecond) Mbit/s cap" : "no bandwidth cap"))
    print("lazyimg_set_scroll_target: " + (ScrollBenchmark.hasScrollTarget
        ? "present, called when a fling or animated scroll starts" : "not in this library, not called"))
    print("loaders: lazyimg (defaults), eager (no cap), LazyTable (no cap), suspend-queue (cap \(LoaderKind.suspendQueueCap));"
          + " TTV = time to visible after a settle; waste = requests for rows never shown\n")
    var merged: [String: [TraceRun]] = [:]
    for name in traceNames {
        guard let trace = ScrollTraces.named(name) else { continue }
        var byKind: [LoaderKind: TraceRun] = [:]
        for _ in 0..<rounds {
            for kind in kinds {  // interleaved, so load on the machine hits every loader alike
                let run = try bench.run(trace, with: kind)
                if byKind[kind] == nil { byKind[kind] = run } else { byKind[kind]?.merge(run) }
            }
        }
        let runs = kinds.compactMap { byKind[$0] }
        merged[name] = runs
        print(BenchReport.traceTable(trace, runs, rounds: rounds) + "\n")
        if printByMotion { print(BenchReport.motionTable(trace, runs) + "\n") }
        for kind in [LoaderKind.lazyimg, .lazyimgWithoutTarget] where printWastedRows {
            guard let run = byKind[kind], !run.wastedRequestLog.isEmpty else { continue }
            print(WastedRequest.lines(run.wastedRequestLog, trace: name, loader: run.loader) + "\n")
        }
    }
    let cost = measureHitCost ? try bench.measureHitCost() : nil
    if let cost { print(BenchReport.hitCostTable(cost) + "\n") }
    print(BenchReport.goalsTable(merged, hitCost: cost))
    print("\nran in \(time(nil) - started) s")
} catch {
    fail("\(error)")
}
