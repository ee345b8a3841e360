import Glibc

/// A counting semaphore (POSIX `sem_t`): `signal` adds one, `wait` sleeps until it
/// can take one.
///
/// For waking threads from a thread that must not wait: `sem_post` is an atomic
/// increment and, when a thread sleeps on it, one futex wake, with no lock inside. A
/// condition variable's signal can wait on the condition's internal lock while a
/// waiter (a decode thread, at a lower priority, kept off the CPU) holds it.
final class Semaphore: @unchecked Sendable {
    // @unchecked: sem_t is made for sharing between threads.
    private let semaphore = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)

    init() {
        sem_init(semaphore, 0, 0)
    }

    deinit {
        sem_destroy(semaphore)
        semaphore.deallocate()
    }

    func signal() {
        sem_post(semaphore)
    }

    func wait() {
        // A signal handler's return interrupts the wait: wait again.
        while sem_wait(semaphore) != 0 && errno == EINTR {}
    }
}
