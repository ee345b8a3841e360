/// The byte layout of a `DecodedImage`'s pixels. Four bytes per pixel either way.
public enum PixelFormat: Hashable, Sendable {
    /// R, G, B, A with straight (not premultiplied) alpha: what the C API documents.
    case rgba8
    /// B, G, R, A with each colour already multiplied by alpha: what Cairo's
    /// CAIRO_FORMAT_ARGB32 and Skia's kBGRA_8888/kPremul want on little-endian
    /// machines, so a host can wrap the pixels without a conversion pass.
    case bgra8Premultiplied
}
