import Glibc
import BenchSupport
import LazyImgCore

// lazyimg-bench: decode throughput of lazyimg's ImageDecoder, one thread.
//
//   lazyimg-bench prepare <photos-dir> <out-dir>
//       re-encodes kodim01..24.png from <photos-dir> as JPEG q90 into <out-dir>
//   lazyimg-bench run [--seconds S] [--box N] [--machine] <file>...
//       decodes each file to an N x N box (default 128) for at least S seconds
//       (default 2) per format and prints thumbnails per second for JPEG and PNG;
//       --machine prints "<format> <thumbs/s> <decodes> <seconds>" lines instead.
//
//   lazyimg-bench placeholders [--seconds S] [--rounds N] < cases
//       renders each BlurHash or ThumbHash case and prints microseconds per render
//       (PlaceholderCost.swift)
//   lazyimg-bench placeholder-requests <blurhash>
//       what a request's placeholder step costs: a row's first answer, and again
//   lazyimg-bench png-previews [--box N] <png>...
//       an interlaced PNG start's preview against counting its passes
//       (PNGPreviewCost.swift)
//
// A benchmark, not a test: it reports numbers and never judges them.

func fail(_ message: String) -> Never {
    let line = "lazyimg-bench: \(message)\n"
    _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
    exit(2)
}

func prepare(photos: String, output: String) {
    var written = 0
    for index in 1...24 {
        let name = index < 10 ? "kodim0\(index)" : "kodim\(index)"
        let source = "\(photos)/\(name).png"
        guard let png = readFile(source) else {
            print("lazyimg-bench: \(source) is missing; skipped")
            continue
        }
        guard let jpeg = JPEGReencoder.reencode(png) else { fail("cannot re-encode \(source)") }
        guard writeFile("\(output)/\(name).jpg", jpeg) else { fail("cannot write \(output)/\(name).jpg") }
        written += 1
    }
    print("lazyimg-bench: wrote \(written) JPEGs (quality \(JPEGReencoder.quality), 4:2:0) to \(output)")
}

func run(_ arguments: ArraySlice<String>) {
    var seconds = 2.0, box = 128, machine = false
    var paths: [String] = []
    var rest = arguments
    while let argument = rest.popFirst() {
        switch argument {
        case "--seconds":
            guard let value = rest.popFirst().flatMap(Double.init), value >= 0 else { fail("--seconds needs a number") }
            seconds = value
        case "--box":
            guard let value = rest.popFirst().flatMap(Int.init), value > 0 else { fail("--box needs a positive integer") }
            box = value
        case "--machine":
            machine = true
        default:
            paths.append(argument)
        }
    }
    guard !paths.isEmpty else { fail("run: no input files") }

    var sets: [(name: String, inputs: [[UInt8]])] = [("JPEG", []), ("PNG", [])]
    for path in paths {
        guard let bytes = readFile(path) else { fail("cannot read \(path)") }
        switch ImageFormat(sniffing: bytes) {
        case .jpeg: sets[0].inputs.append(bytes)
        case .png: sets[1].inputs.append(bytes)
        default: fail("\(path) is neither JPEG nor PNG")
        }
    }

    let target = TargetSize(width: box, height: box)
    for set in sets where !set.inputs.isEmpty {
        let result: Throughput
        do {
            result = try Throughput.measure(set.inputs, target: target, minimumSeconds: seconds)
        } catch {
            fail("decoding the \(set.name) set failed: \(error)")
        }
        if machine {
            print(set.name.lowercased(), result.thumbnailsPerSecond, result.decodes, result.seconds,
                  "checksum=\(result.checksum)")
        } else {
            let rate = (result.thumbnailsPerSecond * 10).rounded() / 10
            let elapsed = (result.seconds * 1000).rounded() / 1000
            print("\(set.name): \(result.files) files, \(result.decodes) decodes in \(elapsed) s: \(rate) thumbnails/s to a \(box)x\(box) box, 1 thread")
        }
    }
}

let arguments = CommandLine.arguments.dropFirst()
switch arguments.first {
case "prepare":
    guard arguments.count == 3 else { fail("usage: lazyimg-bench prepare <photos-dir> <out-dir>") }
    let rest = Array(arguments.dropFirst())
    prepare(photos: rest[0], output: rest[1])
case "run":
    run(arguments.dropFirst())
case "placeholders":
    placeholderCost(arguments.dropFirst())
case "placeholder-requests":
    placeholderRequestCost(arguments.dropFirst())
case "png-previews":
    pngPreviewCost(arguments.dropFirst())
default:
    fail("usage: lazyimg-bench prepare <photos-dir> <out-dir> | run [--seconds S] [--box N] [--machine] <file>... | placeholders [--seconds S] [--rounds N] | placeholder-requests <blurhash> | png-previews [--box N] <png>...")
}
