/// A thread that calls back once a moment has come: how the loader starts a retry
/// whose wait ends while the host calls nothing (an idle list makes no calls).
///
/// One pending moment at a time, the earliest asked for; the callback re-arms the
/// timer for the next one. The thread holds only the schedule and the callback, not
/// the timer, so dropping the timer stops it.
final class WakeTimer: Sendable {
    /// What the thread and the callers share, guarded by `condition`.
    private final class Schedule: @unchecked Sendable {
        let condition = Condition()
        var fire: (@Sendable () -> Void)?
        /// Monotonic milliseconds of the next wake-up; nil = none pending.
        var deadline: Int64?
        var isStopping = false
    }

    private let schedule = Schedule()
    private let thread: NativeThread
    private static let clock = MonotonicClock()

    /// Returns nil when the system refuses the thread. Fires nothing until `setHandler`.
    init?(name: String) {
        let schedule = schedule
        guard let thread = NativeThread(name: name, { Self.run(schedule) }) else { return nil }
        self.thread = thread
    }

    /// What to call at each moment; set once its owner is fully made.
    func setHandler(_ fire: @escaping @Sendable () -> Void) {
        schedule.condition.locked { schedule.fire = fire }
    }

    deinit {
        stop()
    }

    /// Fires `milliseconds` from now, or sooner if an earlier moment is pending.
    func wake(afterMilliseconds milliseconds: Int64) {
        let deadline = Self.clock.nowMilliseconds + max(0, milliseconds)
        schedule.condition.locked {
            guard !schedule.isStopping, schedule.deadline.map({ deadline < $0 }) ?? true else { return }
            schedule.deadline = deadline
            schedule.condition.signal()
        }
    }

    /// Ends the thread and waits for it: no callback runs after this returns, unless
    /// it is called from the callback itself. Idempotent.
    func stop() {
        schedule.condition.locked {
            schedule.isStopping = true
            schedule.condition.signal()
        }
        thread.join()
    }

    private static func run(_ schedule: Schedule) {
        while true {
            let due: (@Sendable () -> Void)? = schedule.condition.locked {
                while !schedule.isStopping {
                    guard let deadline = schedule.deadline else {
                        schedule.condition.wait()
                        continue
                    }
                    let remaining = deadline - clock.nowMilliseconds
                    if remaining <= 0 {
                        schedule.deadline = nil
                        guard let fire = schedule.fire else { continue }
                        return fire
                    }
                    _ = schedule.condition.wait(milliseconds: Int(min(remaining, 60_000)))
                }
                return nil
            }
            guard let fire = due else { return }
            fire()
        }
    }
}
