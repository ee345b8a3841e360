import Glibc

/// Nanoseconds on the monotonic clock, for intervals only.
func monotonicNanoseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}

/// Nanoseconds of CPU time the calling thread has used: a frame's wall time minus
/// the time the thread waited for a core (on 2 cores the loader's own network and
/// decode threads, and everything else, compete with the UI thread).
func threadCPUNanoseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}

/// Sleeps until `deadline` (monotonic ns); returns at once when it has passed.
func sleep(untilNanoseconds deadline: Int64) {
    var target = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
    while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &target, nil) == EINTR {}
}
