#include "lazyimg_support.h"

#include <pthread.h>
#include <signal.h>
#include <stdint.h>

/* The host's signals (SIGINT, SIGCHLD, SIGTERM, ...) are for the host's threads:
 * a handler that wakes the host's poll() must run on a host thread, so the
 * library's threads block every signal that is not raised by a fault of their
 * own. Threads inherit the mask of the thread that creates them, so blocking it
 * around pthread_create leaves no moment in which the new thread takes one (and
 * libcurl's resolver threads, made by the network thread, inherit it too). */
int lazyimg_thread_create_without_signals(pthread_t *thread, void *(*start)(void *), void *arg) {
    sigset_t blocked, previous;
    sigfillset(&blocked);
    /* Faults are delivered to the thread that caused them, blocked or not;
     * leaving them unblocked keeps a crash a crash. */
    sigdelset(&blocked, SIGSEGV);
    sigdelset(&blocked, SIGBUS);
    sigdelset(&blocked, SIGFPE);
    sigdelset(&blocked, SIGILL);
    sigdelset(&blocked, SIGTRAP);
    sigdelset(&blocked, SIGABRT);
    int rc = pthread_sigmask(SIG_SETMASK, &blocked, &previous);
    if (rc != 0)
        return rc;
    rc = pthread_create(thread, NULL, start, arg);
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    return rc;
}
