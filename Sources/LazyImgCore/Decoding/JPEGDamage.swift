import CTurboJPEG
import Glibc

/// What TurboJPEG left behind when a call returned -1: a warning, which browsers
/// ignore (the file is damaged, every row was produced), or an error.
///
/// libjpeg warns, and decodes on, for bytes where a marker should be, a scan that
/// ends early or holds a bad code, an inconsistent progression, data cut off before
/// the end; every row is still produced. An error ends the decode with rows
/// unwritten. TurboJPEG 2.1 returns -1 for both, and tjGetErrorCode says
/// TJERR_WARNING whenever a warning came first, even if an error followed; but its
/// message is the error's once one happened (libjpeg prints only the first warning,
/// and every error). So a failure is a mere warning only when the message is one of
/// libjpeg's warnings (jerror.h, JWRN_*).
enum JPEGDamage {
    /// Computed, not a stored static: a lazily made global goes through the Swift
    /// runtime's once, which ThreadSanitizer cannot see into, and decode threads may
    /// reach it together.
    private static var warningPrefixes: [String] {
        ["Corrupt JPEG data:", "Premature end of JPEG file", "Inconsistent progression sequence",
         "Invalid SOS parameters for sequential JPEG", "Unknown Adobe color transform code",
         "Warning: unknown JFIF revision number", "Application transferred too many scanlines"]
    }

    /// Whether the call that failed on `handle` only warned, so its output is whole.
    static func onlyWarned(_ handle: tjhandle) -> Bool {
        guard tjGetErrorCode(handle) == Int32(TJERR_WARNING.rawValue), let text = tjGetErrorStr2(handle) else {
            return false
        }
        return warningPrefixes.contains { prefix in strncmp(text, prefix, strlen(prefix)) == 0 }
    }
}
