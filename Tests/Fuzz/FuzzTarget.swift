import Glibc
import LazyImgCore

/// What one fuzz run exercises, chosen by name (LAZYIMG_FUZZ_TARGET).
///
/// A decoder target hands the bytes straight to that format's decoder; `frames` plays
/// them as an animation (the frame walk, then frames composed in order and again from
/// the start); `response` sends them through a loader as a downloaded HTTP body, in
/// both output modes, so sniffing, failure messages, encoded output and delivery are
/// covered too. `disk-entry` and `disk-journal` hand them to the disk cache as an
/// entry file and as the journal other processes write (`DiskCacheHarness`).
enum FuzzTarget: String, CaseIterable {
    case jpeg, png, webp, gif, frames, response
    case diskEntry = "disk-entry", diskJournal = "disk-journal"
    #if LAZYIMG_AVIF
    case avif
    #endif
    #if LAZYIMG_HEIF
    case heif
    #endif

    /// Small limits keep each run fast and inside libFuzzer's memory limit; the
    /// decoders' size checks are part of what is fuzzed.
    static let limits = DecodeLimits(maxPixels: 4 << 20)

    /// Option sets cycled by input length, so fit, fill-crop and both pixel formats
    /// all see every kind of file.
    static let options = [
        DecodeOptions(),
        DecodeOptions(target: TargetSize(width: 64, height: 64)),
        DecodeOptions(target: TargetSize(width: 40, height: 90), fit: .fill, format: .bgra8Premultiplied),
    ]

    /// The start a small box's download ends at (fetch_first_pass_only), decoded as
    /// the loader decodes it.
    static func decodeFirstPass(_ bytes: [UInt8], options: DecodeOptions) {
        guard case .suffice(let end) = FirstPass.examine(bytes, for: options) else { return }
        let start = FirstPass.decodable(bytes, upTo: end)
        if ImageFormat(sniffing: start) == .png {
            _ = try? PNGInterlacedPrefix.decodeFirstPass(start, options: options, limits: limits)
        } else {
            _ = try? JPEGDecoder().decode(start, options: options, limits: limits)
        }
    }

    func run(_ bytes: [UInt8]) {
        let options = Self.options[bytes.count % Self.options.count]
        switch self {
        case .jpeg:
            _ = try? JPEGDecoder().decode(bytes, options: options, limits: Self.limits)
            Self.decodeFirstPass(bytes, options: options)
        case .png:
            _ = try? PNGDecoder().decode(bytes, options: options, limits: Self.limits)
            Self.decodeFirstPass(bytes, options: options)
            // A start cut anywhere, read through every pass and painted as a preview.
            let start = Array(bytes.prefix(bytes.count / 2))
            _ = try? PNGInterlacedPrefix.preview(start, options: options, limits: Self.limits)
        case .webp: _ = try? WebPDecoder().decode(bytes, options: options, limits: Self.limits)
        case .gif: _ = try? GIFDecoder().decode(bytes, options: options, limits: Self.limits)
        case .frames: Self.play(bytes, options: options)
        #if LAZYIMG_AVIF
        case .avif: _ = try? AVIFDecoder().decode(bytes, options: options, limits: Self.limits)
        #endif
        #if LAZYIMG_HEIF
        case .heif: _ = try? HEIFDecoder().decode(bytes, options: options, limits: Self.limits)
        #endif
        case .response:
            ResponseHarness.pixels.deliver(bytes)
            ResponseHarness.encoded.deliver(bytes)
        case .diskEntry: DiskCacheHarness.entry(bytes)
        case .diskJournal: DiskCacheHarness.journal(bytes)
        }
    }

    /// The first frames, then one before them (composed again from the first); the
    /// durations and the frame for a time from the walk.
    private static func play(_ bytes: [UInt8], options: DecodeOptions) {
        guard let source = AnimationSource.make(from: bytes, limits: limits) else { return }
        _ = source.frame(at: UInt64(bytes.count) * 37)
        let composer = AnimationComposer(source)
        for index in Array(0..<min(source.frameCount, 6)) + [1] {
            _ = source.duration(ofFrame: index)
            _ = try? composer.render(frame: index, options: options, limits: limits)
        }
    }

    /// From LAZYIMG_FUZZ_TARGET; nil when unset or unknown.
    static var fromEnvironment: FuzzTarget? {
        guard let name = getenv("LAZYIMG_FUZZ_TARGET") else { return nil }
        return FuzzTarget(rawValue: String(cString: name))
    }
}
