/// How long a test waits for a loader's event before it calls the loader hung.
///
/// Only a guard against a hang: a test that works never waits this long, so the
/// margin costs nothing. Under ThreadSanitizer on a 2-core machine busy with other
/// work, one 768x512 progressive JPEG's fetch and decode took over 10 s, the guard
/// these tests had before.
public enum HangGuard {
    public static let eventMilliseconds = 60_000
}
