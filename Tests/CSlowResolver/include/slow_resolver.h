#ifndef LAZYIMG_SLOW_RESOLVER_H
#define LAZYIMG_SLOW_RESOLVER_H
/* A getaddrinfo for tests, linked into the test program so that it interposes on
 * libc's for every caller in the process, libcurl's resolver threads included.
 * Names ending in ".lazyimg.test" (a reserved TLD, RFC 6761) answer 127.0.0.1,
 * after the delay set for that name; every other name goes to libc's getaddrinfo
 * (dlsym(RTLD_NEXT)). */

/* Lookups of `name` take `delay_ms` from now on (0 = answer at once). At most 64
 * names; the longest delay a lookup waits is one minute. */
void lazyimg_slow_resolver_set_delay(const char *name, int delay_ms);

/* Ends every delay: lookups waiting now answer at once, later ones do not wait.
 * Resets the counters. */
void lazyimg_slow_resolver_release(void);

/* Lookups of `name` so far (answered or waiting). */
int lazyimg_slow_resolver_calls(const char *name);

/* Lookups waiting in a delay right now, and the most that ever waited at once since
 * the last release. */
int lazyimg_slow_resolver_waiting(void);
int lazyimg_slow_resolver_most_waiting(void);

#endif
