import Glibc
import LazyImgCore

/// `lazyimg-bench placeholders`: microseconds per placeholder render, one thread.
///
/// Reads lines `<blurhash|thumbhash> <hash> <width> <height>` (ThumbHash as base64) on
/// standard input and prints each back with the fastest of `rounds` timings, each of
/// enough renders to last `seconds / rounds`: `<kind> <hash> <width> <height> <us>`.
/// The fastest, as Python's timeit advises: other processes only ever add time.
func placeholderCost(_ arguments: ArraySlice<String>) {
    var seconds = 1.0, rounds = 10
    var rest = arguments
    while let argument = rest.popFirst() {
        switch argument {
        case "--seconds":
            guard let value = rest.popFirst().flatMap(Double.init), value > 0 else { fail("--seconds needs a number") }
            seconds = value
        case "--rounds":
            guard let value = rest.popFirst().flatMap(Int.init), value > 0 else { fail("--rounds needs a count") }
            rounds = value
        default:
            fail("placeholders: unknown argument \(argument)")
        }
    }
    while let line = readLine() {
        let fields = line.split(separator: " ")
        guard fields.count == 4, let width = Int(fields[2]), let height = Int(fields[3]) else {
            fail("placeholders: bad line \(line)")
        }
        let render: () -> DecodedImage?
        do {
            switch fields[0] {
            case "blurhash":
                let hash = try BlurHash(Array(fields[1].utf8))
                render = { hash.render(width: width, height: height, format: .rgba8) }
            case "thumbhash":
                let hash = try ThumbHash(base64: Array(fields[1].utf8))
                render = { hash.render(width: width, height: height, format: .rgba8) }
            default:
                fail("placeholders: unknown kind \(fields[0])")
            }
        } catch {
            fail("placeholders: \(fields[1]): \(error.message)")
        }
        print(line, fastestMicroseconds(render, seconds: seconds / Double(rounds), rounds: rounds))
    }
}

/// The least over `rounds` of the mean time per call in a loop of `seconds`.
func fastestMicroseconds(_ render: () -> DecodedImage?, seconds: Double, rounds: Int) -> Double {
    var checksum = 0
    _ = render()  // tables made on first use are not what a render costs
    var timings: [Double] = []
    for _ in 0..<rounds {
        var calls = 0
        let start = monotonicSeconds()
        var elapsed = 0.0
        repeat {
            if let image = render() { checksum &+= Int(image.row(image.height / 2)[0]) }
            calls += 1
            elapsed = monotonicSeconds() - start
        } while elapsed < seconds
        timings.append(elapsed / Double(calls) * 1e6)
    }
    if checksum == -1 { print("") }  // keeps the renders from being optimised away
    return timings.min() ?? 0
}

/// `lazyimg-bench placeholder-requests`: what a request's placeholder step costs the
/// host's thread (`ImageLoader.placeholder(forRow:)`) at a 64 x 64 box, for a row seen
/// first (drawn then) and for a row asked again (the kept image). Prints
/// `first <us>` and `again <us>`.
func placeholderRequestCost(_ arguments: ArraySlice<String>) {
    guard arguments.count == 1 else { fail("placeholder-requests: give the BlurHash to use") }
    var configuration = LoaderConfiguration()
    configuration.target = TargetSize(width: 64, height: 64)
    let rows = 4096
    do {
        let loader = try ImageLoader(configuration: configuration) { _ in }
        defer { try? loader.shutdown() }
        // Rows are never requested, so nothing is fetched.
        try loader.setItems(Array(repeating: ImageURL("http://127.0.0.1:9/never"), count: rows))
        let hash = try BlurHash(Array(arguments.first!.utf8))
        try loader.setPlaceholders(first: 0, Array(repeating: .blurHash(hash), count: rows))
        var row = 0
        let first = fastestMicroseconds({ row = (row + 1) % rows; return loader.placeholder(forRow: row) },
                                        seconds: 0.2, rounds: 10)
        let again = fastestMicroseconds({ loader.placeholder(forRow: 0) }, seconds: 0.2, rounds: 10)
        print("first", first)
        print("again", again)
    } catch {
        fail("placeholder-requests: \(error)")
    }
}
