/// Why a placeholder hash was refused. Each case has a fixed message, so the C API can
/// hand it out as static text naming what was wrong.
public enum PlaceholderError: Error, Sendable, Equatable {
    /// Longer than any hash of its kind can be (`BlurHash.maximumLength`,
    /// `ThumbHash.maximumBase64Length`).
    case tooLong
    /// A BlurHash character outside its base 83 alphabet.
    case blurHashCharacter
    /// A BlurHash whose length is not 4 + 2 per component its first character counts.
    case blurHashLength
    /// A ThumbHash whose text is not base64 (standard or URL-safe alphabet).
    case thumbHashBase64
    /// A ThumbHash with fewer bytes than its header says it has.
    case thumbHashTooShort
    /// A ThumbHash whose header counts no luminance components on its short side: the
    /// reference decoder gives such a hash an image with no pixels.
    case thumbHashNoComponents

    public var message: StaticString {
        switch self {
        case .tooLong: "placeholder hash too long"
        case .blurHashCharacter: "BlurHash has a character outside base 83"
        case .blurHashLength: "BlurHash length does not match the component count in its first character"
        case .thumbHashBase64: "ThumbHash is not base64 text"
        case .thumbHashTooShort: "ThumbHash is shorter than its header says"
        case .thumbHashNoComponents: "ThumbHash header has no luminance components on a side"
        }
    }
}
