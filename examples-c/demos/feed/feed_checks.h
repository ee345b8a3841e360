/*
 * feed_checks.h: what a scripted run of a feed demo (termlist, gtk-feed) checks
 * about the loader, the same way for every host:
 *   - while the list moves, downloads only for the rows the scroll policy allows
 *     (scroll_windows.h), judged from the feed server's request log;
 *   - a URL downloaded again only after its first transfer was cancelled;
 *   - exactly one event per ticket;
 *   - the pages arrived (feed_pager.h).
 * The host makes its view calls to the loader through feed_tell_*, which note
 * each call with the time it began, so the windows match what the loader knew.
 */
#ifndef FEED_CHECKS_H
#define FEED_CHECKS_H

#include <stddef.h>
#include <stdint.h>

#include "feed_server.h"
#include "lazyimg.h"
#include "scroll_windows.h"

struct feed_pager;

/* A ticket handed out, and how many events it got. */
struct feed_ticket {
    uint64_t ticket;
    int events;
};

/* Zero it to start. */
struct feed_checks {
    struct feed_ticket *tickets; /* in the order handed out: tickets grow */
    size_t ticket_count, ticket_capacity;
    struct scroll_windows windows; /* what the policy allowed to start, over time */
    lazyimg_scroll_state state;    /* what the loader was told last */
    double velocity;               /* rows per second */
    unsigned moves;                /* motions: IDLE to another state */
    uint64_t downloads_at_motion_start, downloads_while_moving;
    unsigned failures;             /* expectations not met */
    unsigned placeholders_shown;   /* requests answered PLACEHOLDER */
};

/* CLOCK_MONOTONIC in milliseconds: the clock of the server's log. */
double feed_now_ms(void);

/* Counts a failure and prints "expectation failed: ..." unless `ok`. */
void feed_expect(struct feed_checks *c, int ok, const char *fmt, ...);

/* The loader's counters now. */
lazyimg_stats feed_stats(lazyimg_loader *loader);

/* A ticket the loader handed out (request or fetch), and an event for one. */
void feed_checks_ticket(struct feed_checks *c, uint64_t ticket);
void feed_checks_event(struct feed_checks *c, uint64_t ticket);

/* cellForRow: lazyimg_request, a ticket it hands out noted. */
lazyimg_status feed_request(struct feed_checks *c, lazyimg_loader *loader, size_t row, lazyimg_image **out_image,
                            uint64_t *out_ticket);

/* The view calls, made to the loader and noted in the windows. */
void feed_tell_visible(struct feed_checks *c, lazyimg_loader *loader, size_t first, size_t count);
/* Skips a call that repeats the last state and velocity (within 0.05 rows/s). */
void feed_tell_scroll(struct feed_checks *c, lazyimg_loader *loader, lazyimg_scroll_state state,
                      double rows_per_second);
void feed_tell_target(struct feed_checks *c, lazyimg_loader *loader, size_t first, size_t count);

/* After lazyimg_loader_destroy (which delivers every outstanding ticket's
 * event): every ticket got exactly one. */
void feed_checks_answered(struct feed_checks *c);

/* The end of a run, before destroy: the pages arrived, each fetched once, the
 * list moved, some request was deferred while it moved. Prints the figures
 * unless quiet. `server` may be NULL (another feed). */
void feed_checks_run(struct feed_checks *c, lazyimg_loader *loader, const struct feed_pager *pager,
                     struct feed_server *server, int quiet);

/* After feed_server_close: the downloads the server saw against the windows
 * (a download up to grace_ms after a window closed still counts in it) and
 * the re-downloads against the transfers the loader cancelled and the decodes
 * it skipped, from `stats` read at `ended_at_ms` (feed_now_ms()), before
 * destroy closed the loader's connections. */
void feed_checks_downloads(struct feed_checks *c, struct feed_server *server, const struct feed_pager *pager,
                           double grace_ms, const lazyimg_stats *stats, double ended_at_ms, int quiet);

void feed_checks_free(struct feed_checks *c);

#endif
