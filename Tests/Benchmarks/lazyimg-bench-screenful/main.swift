import CLazyImgHeader
import Glibc
import ScrollBench

// lazyimg-bench-screenful (make bench-screenful): how long a first screen of 10 rows
// takes to land from a loopback HTTP/1.1 site that holds every response 40 ms, under
// the old and new connection defaults, measured in the same run. A new loader per
// run, each on its own URLs; prints a table and never judges it by its exit code.

let rows = 10, delayMilliseconds = 40, runs = 9

func fail(_ message: String) -> Never {
    let line = "lazyimg-bench-screenful: \(message)\n"
    _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
    exit(2)
}

func nanosecondsNow() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}

/// The image events the loader has delivered, counted in its callback.
final class ImageCount {
    var images = 0
}

/// Milliseconds from the first request until every row's image event was dispatched,
/// for a new loader with `total` downloads at once and `perHost` connections to a host
/// (0: the library's defaults).
func timeUntilLanded(_ urls: [String], total: UInt32, perHost: UInt32) -> Double {
    let count = ImageCount()
    var config = lazyimg_config()
    lazyimg_config_init(&config)
    config.max_concurrent_downloads = total
    config.max_host_connections = perHost
    config.target_width = 64
    config.target_height = 64
    config.user_data = Unmanaged.passUnretained(count).toOpaque()
    config.on_event = { userData, event in
        guard let userData, let event, event.pointee.type == LAZYIMG_EVENT_IMAGE else { return }
        Unmanaged<ImageCount>.fromOpaque(userData).takeUnretainedValue().images += 1
    }
    var created: OpaquePointer?
    guard lazyimg_loader_create(&config, &created) == LAZYIMG_OK, let loader = created else {
        fail("lazyimg_loader_create failed")
    }
    defer { _ = lazyimg_loader_destroy(loader) }
    let copies = urls.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    let items = copies.map { UnsafePointer($0) }
    guard items.withUnsafeBufferPointer({ lazyimg_set_items(loader, $0.baseAddress, $0.count) }) == LAZYIMG_OK,
          lazyimg_set_visible_range(loader, 0, urls.count) == LAZYIMG_OK else { fail("cannot set the list") }
    let start = nanosecondsNow()
    for row in urls.indices {
        var image: OpaquePointer?
        var ticket: UInt64 = 0
        _ = lazyimg_request(loader, row, &image, &ticket)
        lazyimg_image_release(image)
    }
    while count.images < urls.count {
        guard lazyimg_wait(loader, 15_000) == LAZYIMG_OK else {
            fail("timed out with \(count.images) of \(urls.count) images")
        }
        _ = lazyimg_dispatch(loader, 0)
    }
    return Double(nanosecondsNow() - start) / 1e6
}

func column(_ text: String, _ width: Int) -> String {
    text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
}

func fixed2(_ value: Double) -> String {
    let hundredths = Int((value * 100).rounded())
    let fraction = hundredths % 100
    return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
}

let images: SiteImages
let server: SiteServer
do {
    images = try SiteImages.make(photosDirectory: nil, generatedCount: rows, width: 256, height: 256)
    server = try SiteServer(images: images.jpegs, delayMilliseconds: delayMilliseconds, bytesPerSecond: 0)
} catch {
    fail("\(error)")
}
let setups: [(name: String, total: UInt32, perHost: UInt32)] = [
    ("0.2 default: 6 downloads, 6 per host", 6, 6),
    ("browser-like: 16 downloads, 6 per host", 16, 6),
    ("0.3 default: 16 downloads, 10 per host", 0, 0),
]
print("screenful benchmark: \(rows) rows, \(delayMilliseconds) ms server delay, HTTP/1.1 loopback, "
      + "new loader per run, \(runs) runs")
print(column("setup", 42) + column("median ms", 11) + column("min ms", 9) + "vs 0.2")
var medians: [Double] = []
var run = 0
for setup in setups {
    var times: [Double] = []
    for _ in 0..<runs {
        run += 1
        let urls = (0..<rows).map { server.url(run: run, row: $0) }
        times.append(timeUntilLanded(urls, total: setup.total, perHost: setup.perHost))
    }
    times.sort()
    let median = times[times.count / 2]
    medians.append(median)
    print(column(setup.name, 42) + column(fixed2(median), 11) + column(fixed2(times[0]), 9)
          + fixed2(median / medians[0]))
}
server.stop()
