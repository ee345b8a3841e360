// swift-tools-version:6.0
// lazyimg: a lazy image loader for long scrolling lists, shipped as liblazyimg.so.
import PackageDescription

// The shared library exports exactly the lazyimg_* functions of include/lazyimg.h
// (Sources/LazyImgABI/lazyimg.map) and carries the SONAME of ABI version 0.
let abiLinkerFlags: [String] = [
    "-Xlinker", "-soname=liblazyimg.so.0",
    "-Xlinker", "--version-script=\(Context.packageDirectory)/Sources/LazyImgABI/lazyimg.map",
]

// Release builds put each function in a section of its own and lay the ones a UI
// thread runs each frame side by side (Sources/LazyImgABI/ui-thread.order): a frame
// after a 16 ms sleep pays for every code page it touches.
let functionSections: [SwiftSetting] = [.unsafeFlags(["-Xfrontend", "-function-sections"], .when(configuration: .release))]
let uiThreadOrder: [LinkerSetting] = [.unsafeFlags(
    ["-Xlinker", "--section-ordering-file=\(Context.packageDirectory)/Sources/LazyImgABI/ui-thread.order"],
    .when(configuration: .release))]

// AVIF and HEIC decode when the build has libavif and libde265 (and libheif, whose
// encoder the tests make HEIC files with). The Makefile sets LAZYIMG_AVIF=0 /
// LAZYIMG_HEIF=0 when pkg-config does not find them; LazyImgCore then leaves that
// system-library target out (SwiftPM never looks for the package of a target nothing
// depends on) and refuses the format. A plain `swift build` assumes all three.
let withAVIF = Context.environment["LAZYIMG_AVIF"] != "0"
let withHEIF = Context.environment["LAZYIMG_HEIF"] != "0"
let optionalCodecs: [Target.Dependency] = (withAVIF ? ["CAvif"] : []) + (withHEIF ? ["CDe265"] : [])
let optionalTestCodecs: [Target.Dependency] = optionalCodecs + (withHEIF ? ["CHeif"] : [])
let optionalCodecFlags: [SwiftSetting] = (withAVIF ? [.define("LAZYIMG_AVIF")] : [])
    + (withHEIF ? [.define("LAZYIMG_HEIF")] : [])

let package = Package(
    name: "lazyimg",
    products: [
        .library(name: "lazyimg", type: .dynamic, targets: ["LazyImgABI"]),
        .executable(name: "lazyimg-bench", targets: ["lazyimg-bench"]),
        .executable(name: "lazyimg-bench-scroll", targets: ["lazyimg-bench-scroll"]),
        .executable(name: "lazyimg-bench-screenful", targets: ["lazyimg-bench-screenful"]),
        .executable(name: "lazyimg-fuzz", targets: ["lazyimg-fuzz"]),
    ],
    targets: [
        // System C libraries, each behind a module map and a shim header.
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl"),
        .systemLibrary(name: "CTurboJPEG", pkgConfig: "libturbojpeg"),
        .systemLibrary(name: "CSpng", pkgConfig: "spng"),
        .systemLibrary(name: "CWebP", pkgConfig: "libwebpdemux"),
        .systemLibrary(name: "CGif", pkgConfig: "libgif"),
        // Headers in /usr/include: without pkgConfig, SwiftPM does not warn of the
        // -DAVIF_DLL that libavif.pc adds (it only matters on Windows).
        .systemLibrary(name: "CAvif"),
        .systemLibrary(name: "CDe265", pkgConfig: "libde265"),
        // libheif, for tests only: its x265 encoder makes the HEIC test files.
        .systemLibrary(name: "CHeif", pkgConfig: "libheif"),
        // What Glibc does not import into Swift (eventfd).
        .target(name: "CLazyImgSupport", cSettings: [.unsafeFlags(["-ffunction-sections"], .when(configuration: .release))]),
        // The public header, so the ABI layer is compiled against the contract itself.
        .systemLibrary(name: "CLazyImgHeader"),

        // The pure-Swift core: policy, caching, loading, decoding, delivery. No C ABI.
        .target(
            name: "LazyImgCore",
            dependencies: ["CCurl", "CTurboJPEG", "CSpng", "CWebP", "CGif", "CLazyImgSupport"] + optionalCodecs,
            swiftSettings: optionalCodecFlags + functionSections
        ),
        // The thin C ABI: validate, convert, forward.
        .target(
            name: "LazyImgABI",
            dependencies: ["LazyImgCore", "CLazyImgHeader", "CLazyImgSupport"],
            exclude: ["lazyimg.map", "ui-thread.order"],
            swiftSettings: functionSections,
            linkerSettings: [.unsafeFlags(abiLinkerFlags)] + uiThreadOrder
        ),

        // Everything below checks or measures the library and lives under Tests/:
        // the benchmarks in Tests/Benchmarks, the fuzzer in Tests/Fuzz, the XCTests and
        // their helpers. `make build` builds the library product alone.

        // The decode benchmark (Tests/Benchmarks/bench-decode.sh runs it beside djpeg and Pillow).
        .executableTarget(
            name: "lazyimg-bench",
            dependencies: ["BenchSupport", "LazyImgCore"],
            path: "Tests/Benchmarks/lazyimg-bench"
        ),
        // What the benchmarks share: file bytes, JPEG and PNG encoding.
        .target(name: "BenchSupport", dependencies: ["LazyImgCore", "CTurboJPEG", "CSpng"], path: "Tests/Benchmarks/BenchSupport"),

        // The scroll benchmark (make bench-scroll): traces, the site server, lazyimg through
        // its C API and the baseline loaders; a library so a test can run a tiny trace.
        // The LazyTable baseline's per-frame part, in C as an app would write it.
        .target(name: "CLazyTable", path: "Tests/Benchmarks/CLazyTable"),
        // lazyimg's host, its per-frame part and event callback in C as well, so both
        // frames are timed with a C host's bookkeeping.
        .target(name: "CLazyImgHost", path: "Tests/Benchmarks/CLazyImgHost"),
        .target(
            name: "ScrollBench",
            dependencies: ["BenchSupport", "LazyImgABI", "LazyImgCore", "CLazyImgHeader", "CLazyTable", "CLazyImgHost"],
            path: "Tests/Benchmarks/ScrollBench",
            // The harness stands in for a C host, whose frame has no run-time checks of
            // exclusive access: with them, the lazyimg host's cell bookkeeping was an
            // eighth of the frame's instructions (callgrind), timed as the library's.
            swiftSettings: [.unsafeFlags(["-enforce-exclusivity=unchecked"])]
        ),
        .executableTarget(
            name: "lazyimg-bench-scroll",
            dependencies: ["ScrollBench"],
            path: "Tests/Benchmarks/lazyimg-bench-scroll",
            // Exports lazyimg_* from the program, so dlsym finds lazyimg_set_scroll_target
            // once the library has it (the version script keeps every other symbol local).
            linkerSettings: [.unsafeFlags(["-Xlinker", "--export-dynamic"])]
        ),
        // The first-screen benchmark (make bench-screenful): 10 rows from the site server
        // under the old and new connection defaults.
        .executableTarget(
            name: "lazyimg-bench-screenful",
            dependencies: ["ScrollBench", "CLazyImgHeader"],
            path: "Tests/Benchmarks/lazyimg-bench-screenful"
        ),

        // libFuzzer targets for the decoders and the response path (make fuzz builds
        // it with -sanitize=fuzzer,address; a plain build only prints how).
        // --write-seeds makes the AVIF and HEIF targets' seeds with the test encoders.
        .executableTarget(name: "lazyimg-fuzz", dependencies: ["LazyImgCore", "TestSupport"], path: "Tests/Fuzz",
                          swiftSettings: optionalCodecFlags),

        // libpng, for tests only: the second decoder PNG pixels are checked against,
        // behind a small C function because libpng reports errors by longjmp.
        .systemLibrary(name: "CPng", path: "Tests/CPng", pkgConfig: "libpng"),
        .target(name: "CPngReference", dependencies: ["CPng"], path: "Tests/CPngReference"),
        // A getaddrinfo that interposes on libc's in the test program, so tests can
        // make one name resolve slowly through real libcurl and the real resolver.
        .target(name: "CSlowResolver", path: "Tests/CSlowResolver", linkerSettings: [.linkedLibrary("dl")]),

        // Test helpers: a loopback HTTP server, test-image encoders, reference decoders.
        .target(
            name: "TestSupport",
            dependencies: ["LazyImgCore", "CTurboJPEG", "CSpng", "CGif", "CWebP", "CPngReference", "CSlowResolver"]
                + optionalTestCodecs,
            path: "Tests/TestSupport",
            swiftSettings: optionalCodecFlags
        ),
        .testTarget(name: "LazyImgCoreTests", dependencies: ["LazyImgCore", "TestSupport"],
                    swiftSettings: optionalCodecFlags),
        .testTarget(name: "LazyImgABITests", dependencies: ["LazyImgABI", "LazyImgCore", "CLazyImgHeader", "TestSupport"],
                    swiftSettings: optionalCodecFlags),
        .testTarget(name: "ScrollBenchTests", dependencies: ["ScrollBench"], path: "Tests/Benchmarks/ScrollBenchTests"),
    ]
)
