import Glibc
import ScrollBench

// lazyimg-bench-scroll: replays scroll traces at 60 Hz (or --hz) against lazyimg (through its C
// API, as a UI calls it, with and without lazyimg_set_scroll_target) and against
// baseline loaders on the same transport and decoder, over a loopback site with a
// per-response delay and a bandwidth cap, and prints a table per trace, the
// memory-hit cost and the goals. The traces are the fixed ones, sessions generated
// from toolkit physics ("family:seed"), and some again on a shared slow link.
//
// A benchmark, not a test: it reports figures and never judges them by its exit code.

func fail(_ message: String) -> Never {
    let line = "lazyimg-bench-scroll: \(message)\n"
    _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
    exit(2)
}

let usage = """
    usage: lazyimg-bench-scroll [--traces NAME,... (\((ScrollTraces.names + ScrollTraces.returningNames).joined(separator: ",")), or family:seed)]
                                [--families F,...|none (\(ToolkitFamily.allCases.map(\.rawValue).joined(separator: ",")))]
                                [--seeds N,... (\(FlingSessions.reportSeeds.map(String.init).joined(separator: ",")))]
                                [--slow-link-traces NAME,...|none (read-fling-read,uikit-snap:101,\(ScrollTraces.returningNames.joined(separator: ",")))] [--slow-link-mbps N (32)]
                                [--loaders \(LoaderKind.allCases.map(\.rawValue).joined(separator: ","))]
                                [--rounds N] [--delay-ms MS (40)] [--mbps N (200; 0 = no cap)]
                                [--photos DIR (../shared/corpus/photos)] [--no-hit-cost]
                                [--progressive (the site's photos as progressive JPEGs, and the DC-only picture's PSNR; with lazyimg-previews, each scan count's)]
                                [--interlaced-png (as Adam7-interlaced PNGs, and the pass-1 picture's PSNR; with lazyimg-previews, each pass count's)] [--png (as plain PNGs)]
                                [--box PX (64: the cells' box)]
                                [--preview-ms MS (250: lazyimg-previews' preview_interval_ms)]
                                [--read-ms MS (800: how long read-fling-read reads each screen)]
                                [--hz N (60: the display's frame rate, 30-240)]
                                [--busy-threads N (0: threads spinning at the UI thread's priority through every run)]
                                [--waste-rows (lazyimg's wasted requests, each with the frame it came in)]
                                [--by-motion (host time per frame at rest, dragged and decelerating)]
                                [--simulate (the landing simulation of each family, no network)]
                                [--tune (leave-one-family-out fits of the landing estimate's constants)]
    Given any of --traces, --families, --slow-link-traces, only what they name runs.
    """

func names(_ value: String?) -> [String] {
    guard let value, value != "none" else { return [] }
    return value.split(separator: ",").map(String.init)
}

var traceNames: [String]?
var familyNames: [String]?
var slowLinkNames: [String]?
var seeds = FlingSessions.reportSeeds
var explicitKinds: [LoaderKind]?
var rounds = 1, delayMilliseconds = 40
var megabitsPerSecond = 200.0, slowLinkMegabitsPerSecond = 32.0
var photos = "../shared/corpus/photos"
var measureHitCost = true
var printWastedRows = false, printByMotion = false
var simulateOnly = false, tuneOnly = false
var encoding = SiteEncoding.jpeg, box = 64, busyThreads = 0
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--traces": traceNames = names(arguments.popFirst())
    case "--families": familyNames = names(arguments.popFirst())
    case "--slow-link-traces": slowLinkNames = names(arguments.popFirst())
    case "--seeds":
        let parsed = names(arguments.popFirst()).map { UInt64($0) }
        guard !parsed.isEmpty, !parsed.contains(nil) else { fail(usage) }
        seeds = parsed.compactMap { $0 }
    case "--loaders":
        let parsed = names(arguments.popFirst()).map { LoaderKind(rawValue: $0) }
        guard !parsed.isEmpty, !parsed.contains(nil) else { fail(usage) }
        explicitKinds = parsed.compactMap { $0 }
    case "--rounds":
        guard let value = arguments.popFirst().flatMap(Int.init), (1...20).contains(value) else { fail(usage) }
        rounds = value
    case "--delay-ms":
        guard let value = arguments.popFirst().flatMap(Int.init), (0...5_000).contains(value) else { fail(usage) }
        delayMilliseconds = value
    case "--mbps":
        guard let value = arguments.popFirst().flatMap(Double.init), value >= 0 else { fail(usage) }
        megabitsPerSecond = value
    case "--slow-link-mbps":
        guard let value = arguments.popFirst().flatMap(Double.init), value > 0 else { fail(usage) }
        slowLinkMegabitsPerSecond = value
    case "--photos":
        guard let value = arguments.popFirst() else { fail(usage) }
        photos = value
    case "--no-hit-cost": measureHitCost = false
    case "--progressive": encoding = .progressiveJPEG
    case "--interlaced-png": encoding = .interlacedPNG
    case "--png": encoding = .png
    case "--box":
        guard let value = arguments.popFirst().flatMap(Int.init), (8...1024).contains(value) else { fail(usage) }
        box = value
    case "--preview-ms":
        guard let value = arguments.popFirst().flatMap(Int.init), (1...60_000).contains(value) else { fail(usage) }
        LoaderKind.previewIntervalMilliseconds = value
    case "--read-ms":
        guard let value = arguments.popFirst().flatMap(Int.init), (100...60_000).contains(value) else { fail(usage) }
        ScrollTraces.readSeconds = Double(value) / 1000
    case "--hz":
        guard let value = arguments.popFirst().flatMap(Double.init), (30...240).contains(value) else { fail(usage) }
        ScrollTrace.framesPerSecond = value
    case "--busy-threads":
        guard let value = arguments.popFirst().flatMap(Int.init), (0...16).contains(value) else { fail(usage) }
        busyThreads = value
    case "--waste-rows": printWastedRows = true
    case "--by-motion": printByMotion = true
    case "--simulate": simulateOnly = true
    case "--tune": tuneOnly = true
    default: fail(usage)
    }
}

let chosen = traceNames != nil || familyNames != nil || slowLinkNames != nil
guard let families = (familyNames ?? (chosen ? [] : ToolkitFamily.allCases.map(\.rawValue)))
    .map({ ToolkitFamily(rawValue: $0) }) as [ToolkitFamily?]?, !families.contains(nil) else { fail(usage) }
let sessionNames = families.compactMap { $0 }.flatMap { family in seeds.map { FlingSessions.name(family, seed: $0) } }
let mainNames = (traceNames ?? (chosen ? [] : ScrollTraces.names)) + sessionNames
let slowNames = slowLinkNames ?? (chosen ? [] : ["read-fling-read", FlingSessions.name(.uikitSnap, seed: FlingSessions.reportSeeds[0])]
    + ScrollTraces.returningNames)
for name in mainNames + slowNames where ScrollTraces.named(name) == nil { fail("unknown trace \(name)\n" + usage) }

/// The command that reproduces a table: the options that change figures, and what
/// selects it.
@MainActor func reproduce(_ selection: String) -> String {
    var options = [selection]
    if rounds > 1 { options.append("--rounds \(rounds)") }
    if delayMilliseconds != 40 { options.append("--delay-ms \(delayMilliseconds)") }
    if megabitsPerSecond != 200 { options.append("--mbps \(fixed(megabitsPerSecond, 0))") }
    if let explicitKinds { options.append("--loaders " + explicitKinds.map(\.rawValue).joined(separator: ",")) }
    switch encoding {
    case .jpeg: break
    case .progressiveJPEG: options.append("--progressive")
    case .interlacedPNG: options.append("--interlaced-png")
    case .png: options.append("--png")
    }
    if box != 64 { options.append("--box \(box)") }
    if ScrollTrace.framesPerSecond != 60 { options.append("--hz \(fixed(ScrollTrace.framesPerSecond, 0))") }
    if LoaderKind.previewIntervalMilliseconds != 250 { options.append("--preview-ms \(LoaderKind.previewIntervalMilliseconds)") }
    if ScrollTraces.readSeconds != 0.8 { options.append("--read-ms \(Int((ScrollTraces.readSeconds * 1000).rounded()))") }
    if busyThreads > 0 { options.append("--busy-threads \(busyThreads)") }
    return "make bench-scroll BENCH_SCROLL_ARGS='\(options.joined(separator: " "))'"
}

if simulateOnly {
    let simulated = chosen ? families.compactMap { $0 } : ToolkitFamily.allCases
    let traces = (traceNames ?? []).compactMap { ScrollTraces.named($0) }
    var selection = "--simulate --families " + (simulated.isEmpty ? "none" : simulated.map(\.rawValue).joined(separator: ","))
    selection += " --seeds " + seeds.map(String.init).joined(separator: ",")
    if let traceNames { selection += " --traces " + traceNames.joined(separator: ",") }
    print(LandingReport.simulationTable(simulated, seeds: seeds, traces: traces, command: reproduce(selection)))
    exit(0)
}
if tuneOnly {
    print(LandingReport.leaveOneOutTable(LandingTuning.leaveOneOut(ToolkitFamily.allCases), command: reproduce("--tune")))
    let shipped = LandingTuning.fit(ToolkitFamily.allCases.filter { !LandingTuning.heldOut.contains($0) })
    print("\nfitted without \(LandingTuning.heldOutNames) (LandingEstimate.Constants.tuned): \(LandingReport.describe(shipped))")
    exit(0)
}

// Bounded: whatever happens, the process (and with it the servers) ends.
alarm(2_400)

let started = time(nil)
do {
    let images = try SiteImages.make(photosDirectory: photos, encoding: encoding)
    let bench = try ScrollBenchmark(images: images, delayMilliseconds: delayMilliseconds,
                                    bytesPerSecond: Int(megabitsPerSecond * 1e6 / 8), box: box, busyThreads: busyThreads)
    defer { bench.stop() }
    print("scroll benchmark: \(fixed(ScrollTrace.framesPerSecond, 0)) Hz; fixed traces \(ScrollTraces.rows) rows, \(ScrollTraces.visibleRows) visible; sessions"
          + " \(FlingSessions.rows) rows of 40-300 px on 600-1,000 px; cells of \(bench.box)x\(bench.box)")
    print("site: \(images.origin), \(images.averageBytes / 1024) KiB average; 127.0.0.1, \(delayMilliseconds) ms per response, "
          + (megabitsPerSecond > 0 ? "\(megabitsPerSecond) Mbit/s cap" : "no bandwidth cap"))
    if busyThreads > 0 {
        print("load: every loader's run with \(BenchReport.busyNote(busyThreads)), each walking \(BusyThreads.bufferBytes >> 20) MiB,"
              + " started before the loader is made and stopped after it finishes; the hit cost without them")
    }
    print("lazyimg: lazyimg_set_scroll_target called when a fling or animated scroll starts; lazyimg-no-target: never called"
          + " (velocity only). eager (no cap), LazyTable (per-frame part in C, no cap), suspend-queue (cap \(LoaderKind.suspendQueueCap)).")
    print("The site serves byte ranges (Accept-Ranges, ETag), as CDNs do; on the slow link, *-no-range: the same loader on a"
          + " site that does not, so a cancelled download starts over (lazyimg before 0.4.0 resumed nothing).")
    print("TTV = time to visible after a settle; waste = requests for rows whose image never showed in a cell; 206 = requests answered with a byte range (a resumed download's rest; with lazyimg's fetch_first_pass_only, a progressive JPEG's or interlaced PNG's start and what continues it); KiB/img = what the site sent per image shown in a cell;"
          + " \(LandingTuning.heldOutNames) were held out of the fit of the landing estimate's constants\n")
    var merged: [String: [TraceRun]] = [:]
    func run(_ name: String, on bench: ScrollBenchmark, key: String, selection: String, note: String = "",
             slowLink: Bool = false) throws {
        guard let trace = ScrollTraces.named(name) else { return }
        let kinds = explicitKinds ?? (slowLink ? LoaderKind.slowLink
            : ScrollTraces.names.contains(name) ? LoaderKind.standard : LoaderKind.sessions)
        var byKind: [LoaderKind: TraceRun] = [:]
        for _ in 0..<rounds {
            for kind in kinds {  // interleaved, so load on the machine hits every loader alike
                let run = try bench.run(trace, with: kind)
                if byKind[kind] == nil { byKind[kind] = run } else { byKind[kind]?.merge(run) }
            }
        }
        let runs = kinds.compactMap { byKind[$0] }
        merged[key] = runs
        print(note + BenchReport.traceTable(trace, runs, rounds: rounds, busyThreads: busyThreads,
                                                  command: reproduce(selection)) + "\n")
        if printByMotion { print(BenchReport.motionTable(trace, runs) + "\n") }
        if kinds.contains(.lazyimgPreviews) || kinds.contains(.lazyimgWithoutTargetPreviews) { print(PreviewReport.table(trace, runs, command: reproduce(selection)) + "\n") }
        fflush(nil)  // each table as it comes, also into a file
        for kind in [LoaderKind.lazyimg, .lazyimgWithoutTarget] where printWastedRows {
            guard let run = byKind[kind], !run.wastedRequestLog.isEmpty else { continue }
            print(WastedRequest.lines(run.wastedRequestLog, trace: name, loader: run.loader) + "\n")
        }
    }
    for name in mainNames {
        let session = FlingSessions.parse(name)
        let note = session.map { s in
            "\(s.family.rawValue) physics" + (LandingTuning.heldOut.contains(s.family) ? " (held out of the fit)" : "") + ", "
        } ?? ""
        try run(name, on: bench, key: name, selection: "--traces \(name)", note: note)
    }
    if !slowNames.isEmpty {
        let slow = try ScrollBenchmark(images: images, delayMilliseconds: delayMilliseconds,
                                       bytesPerSecond: Int(slowLinkMegabitsPerSecond * 1e6 / 8), box: box,
                                       busyThreads: busyThreads)
        defer { slow.stop() }
        for name in slowNames {
            try run(name, on: slow, key: BenchReport.slowLinkPrefix + name,
                    selection: "--slow-link-traces \(name)" + (slowLinkMegabitsPerSecond != 32 ? " --slow-link-mbps \(fixed(slowLinkMegabitsPerSecond, 0))" : ""),
                    note: "shared \(fixed(slowLinkMegabitsPerSecond / 8, 1)) MB/s link, ", slowLink: true)
        }
    }
    if encoding == .progressiveJPEG || encoding == .interlacedPNG { print(FirstPassQuality.table(images, boxes: [box], command: reproduce("--traces none")) + "\n") }
    if encoding == .progressiveJPEG || encoding == .interlacedPNG, let explicitKinds, explicitKinds.contains(.lazyimgPreviews)
        || explicitKinds.contains(.lazyimgWithoutTargetPreviews) {
        print(PreviewReport.qualityTable(images, box: box, command: reproduce("--traces none")) + "\n")
    }
    let cost = measureHitCost ? try bench.measureHitCost() : nil
    if let cost { print(BenchReport.hitCostTable(cost, command: reproduce("--traces none")) + "\n") }
    let given = CommandLine.arguments.dropFirst().filter { !$0.hasSuffix("/photos") && $0 != "--photos" }
    print(BenchReport.goalsTable(merged, hitCost: cost, busyThreads: busyThreads,
                                 command: "make bench-scroll" + (given.isEmpty ? "" : " BENCH_SCROLL_ARGS='\(given.joined(separator: " "))'")))
    print("\nran in \(time(nil) - started) s")
} catch {
    fail("\(error)")
}
