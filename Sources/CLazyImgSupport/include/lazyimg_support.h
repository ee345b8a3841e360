#ifndef LAZYIMG_SUPPORT_H
#define LAZYIMG_SUPPORT_H
/* The few system calls Swift's Glibc module does not import, and a thread-local
 * Swift cannot declare. */

#include <pthread.h>
#include <stdint.h>
/* Part of this module; included here too, so that a build whose module cache
 * predates it rebuilds the module. */
#include "input_ring.h"
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

/* 1 when the processor's cycle counter is what the kernel keeps time by (x86-64,
 * the "tsc" clocksource), else 0. Reads sysfs: call it once, off a UI's frame. */
int lazyimg_cycles_keep_time(void);

/* The cycle counter: one instruction, no memory touched. Meaningful only where
 * lazyimg_cycles_keep_time() said 1; 0 elsewhere. */
static inline uint64_t lazyimg_cycles(void) {
#if defined(__x86_64__)
    return __rdtsc();
#else
    return 0;
#endif
}

/* A non-blocking, close-on-exec eventfd; -1 with errno on failure. */
int lazyimg_eventfd_open(void);
/* Adds one to the counter; the fd becomes readable. */
void lazyimg_eventfd_signal(int fd);
/* Resets the counter to zero; the fd stops being readable. */
void lazyimg_eventfd_drain(int fd);

/* Names the calling thread for debuggers (truncated to the kernel's 15 bytes). */
void lazyimg_thread_set_name(const char *name);

/* pthread_create for a library thread: the new thread blocks every signal but
 * the faults (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT), so the host's
 * signals reach the host's threads. Returns pthread_create's result. */
int lazyimg_thread_create_without_signals(pthread_t *thread, void *(*start)(void *), void *arg);

/* Raises the calling thread's nice value by `steps` (at most to 19), a lower
 * priority than the threads it was made from, and makes it SCHED_BATCH (no
 * wakeup preemption of the thread that woke it). 0, or -1 with errno. */
int lazyimg_thread_lower_priority(int steps);

/* Makes the calling thread SCHED_BATCH at its nice value: woken, it waits for
 * the running thread's slice instead of preempting it. 0, or -1 with errno. */
int lazyimg_thread_set_batch(void);

/* Callbacks running on the calling thread, innermost first: a frame on the
 * thread's stack per delivery running one (a callback may dispatch another
 * loader's events, or its own). */
typedef struct lazyimg_callback_frame {
    const void *owner;
    struct lazyimg_callback_frame *outer;
} lazyimg_callback_frame;

/* `frame` (its owner set) becomes the calling thread's innermost one. */
void lazyimg_callback_enter(lazyimg_callback_frame *frame);
/* Leaves `frame`, the innermost one, for the one it was entered inside. */
void lazyimg_callback_leave(lazyimg_callback_frame *frame);
/* 1 if a frame of `owner` is open on the calling thread, else 0. */
int lazyimg_callback_running(const void *owner);

/* Returns the free memory of every malloc arena to the system (glibc malloc_trim). */
void lazyimg_release_free_memory(void);

/* The calling thread's reason for its last failed create (copied, at most 511
 * bytes; NULL clears it), and that text (never NULL). */
void lazyimg_create_error_set(const char *text);
const char *lazyimg_create_error_get(void);

#endif
