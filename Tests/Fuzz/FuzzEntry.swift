import Glibc

/// libFuzzer calls this once per input (the build adds -sanitize=fuzzer and
/// -DLAZYIMG_FUZZING; `make fuzz` does both). The target comes from
/// LAZYIMG_FUZZ_TARGET.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let target = FuzzTarget.fromEnvironment else {
        print("set LAZYIMG_FUZZ_TARGET to one of: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))")
        exit(2)
    }
    target.run(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}

#if LAZYIMG_FUZZING
/// libFuzzer's own driver (LLVM 11 and later), called from our entry point: SwiftPM
/// links every executable with its module's main as the entry, so libFuzzer's main
/// never runs by itself.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32
#endif

@main
struct FuzzMain {
    static func main() {
        // `lazyimg-fuzz --write-seeds DIR`: the generated files the AVIF and HEIF
        // targets start from (the corpus has none), then exit.
        if CommandLine.arguments.count == 3 && CommandLine.arguments[1] == "--write-seeds" {
            exit(FuzzSeeds.write(into: CommandLine.arguments[2]) ? 0 : 1)
        }
        #if LAZYIMG_FUZZING
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(runFuzzerDriver(&argc, &argv, { fuzzOneInput($0, $1) }))
        #else
        // Built without libFuzzer (as `swift build` does) nothing drives the entry
        // point. Regression inputs are replayed by XCTests.
        print("lazyimg-fuzz: build with `make fuzz` (-sanitize=fuzzer -DLAZYIMG_FUZZING) to run it")
        exit(2)
        #endif
    }
}
