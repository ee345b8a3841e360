/*
 * feed_checks.c: a scripted feed run's checks (feed_checks.h).
 */
#define _POSIX_C_SOURCE 200809L

#include "feed_checks.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "feed_pager.h"

#define MAX_REPORTED 5 /* failed downloads described one by one */

double feed_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000.0 + t.tv_nsec / 1e6;
}

void feed_expect(struct feed_checks *c, int ok, const char *fmt, ...)
{
    va_list ap;
    if (ok)
        return;
    c->failures++;
    fprintf(stderr, "expectation failed: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

lazyimg_stats feed_stats(lazyimg_loader *loader)
{
    lazyimg_stats s;
    memset(&s, 0, sizeof s);
    s.struct_size = sizeof s;
    lazyimg_get_stats(loader, &s);
    return s;
}

/* ------------------------------------------------------------ tickets */

void feed_checks_ticket(struct feed_checks *c, uint64_t ticket)
{
    if (c->ticket_count == c->ticket_capacity) {
        size_t capacity = c->ticket_capacity ? 2 * c->ticket_capacity : 256;
        struct feed_ticket *grown = realloc(c->tickets, capacity * sizeof *grown);
        if (grown == NULL) {
            feed_expect(c, 0, "out of memory");
            return;
        }
        c->tickets = grown;
        c->ticket_capacity = capacity;
    }
    feed_expect(c, ticket != 0 && (c->ticket_count == 0 || c->tickets[c->ticket_count - 1].ticket < ticket),
                "ticket %" PRIu64 " is 0 or not new", ticket);
    c->tickets[c->ticket_count].ticket = ticket;
    c->tickets[c->ticket_count++].events = 0;
}

static struct feed_ticket *find_ticket(struct feed_checks *c, uint64_t ticket)
{
    size_t lo = 0, hi = c->ticket_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->tickets[mid].ticket < ticket)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < c->ticket_count && c->tickets[lo].ticket == ticket ? &c->tickets[lo] : NULL;
}

void feed_checks_event(struct feed_checks *c, uint64_t ticket)
{
    struct feed_ticket *t = find_ticket(c, ticket);
    feed_expect(c, t != NULL, "event for unknown ticket %" PRIu64, ticket);
    if (t != NULL) {
        t->events++;
        feed_expect(c, t->events == 1, "ticket %" PRIu64 ": event number %d", ticket, t->events);
    }
}

void feed_checks_answered(struct feed_checks *c)
{
    for (size_t i = 0; i < c->ticket_count; i++)
        feed_expect(c, c->tickets[i].events == 1, "ticket %" PRIu64 " got %d events", c->tickets[i].ticket,
                    c->tickets[i].events);
}

lazyimg_status feed_request(struct feed_checks *c, lazyimg_loader *loader, size_t row, lazyimg_image **out_image,
                            uint64_t *out_ticket)
{
    lazyimg_status st = lazyimg_request(loader, row, out_image, out_ticket);
    if (st == LAZYIMG_PENDING || st == LAZYIMG_DEFERRED || st == LAZYIMG_PLACEHOLDER)
        feed_checks_ticket(c, *out_ticket);
    if (st == LAZYIMG_PLACEHOLDER)
        c->placeholders_shown++;
    feed_expect(c, st != LAZYIMG_OK || !lazyimg_image_is_placeholder(*out_image), "row %zu: OK with a placeholder",
                row);
    feed_expect(c, st != LAZYIMG_PLACEHOLDER || lazyimg_image_is_placeholder(*out_image),
                "row %zu: PLACEHOLDER with an image", row);
    return st;
}

/* ---------------------------------------------------------- view calls */

/* The loader may start downloads before a call returns, so what it was told
 * counts from the moment the call began. */

void feed_tell_visible(struct feed_checks *c, lazyimg_loader *loader, size_t first, size_t count)
{
    double told_at = feed_now_ms();
    lazyimg_set_visible_range(loader, first, count);
    scroll_windows_told_visible(&c->windows, told_at, first, count);
}

void feed_tell_scroll(struct feed_checks *c, lazyimg_loader *loader, lazyimg_scroll_state state,
                      double rows_per_second)
{
    if (state == c->state && fabs(rows_per_second - c->velocity) < 0.05)
        return;
    /* Which downloads started while moving is checked from the server's log
     * (feed_checks_downloads); this counts them. */
    if (c->state == LAZYIMG_SCROLL_IDLE && state != LAZYIMG_SCROLL_IDLE) {
        c->downloads_at_motion_start = feed_stats(loader).downloads_started;
        c->moves++;
    } else if (c->state != LAZYIMG_SCROLL_IDLE && state == LAZYIMG_SCROLL_IDLE) {
        c->downloads_while_moving += feed_stats(loader).downloads_started - c->downloads_at_motion_start;
    }
    double told_at = feed_now_ms();
    lazyimg_set_scroll_state(loader, state, rows_per_second);
    scroll_windows_told_scroll(&c->windows, told_at, state, rows_per_second);
    c->state = state;
    c->velocity = rows_per_second;
}

void feed_tell_target(struct feed_checks *c, lazyimg_loader *loader, size_t first, size_t count)
{
    double told_at = feed_now_ms();
    lazyimg_set_scroll_target(loader, first, count);
    scroll_windows_told_target(&c->windows, told_at, first, count);
}

/* ------------------------------------------------------------- the run */

void feed_checks_run(struct feed_checks *c, lazyimg_loader *loader, const struct feed_pager *pager,
                     struct feed_server *server, int quiet)
{
    lazyimg_stats s = feed_stats(loader);
    if (!quiet) {
        printf("rows %zu from %u page(s) (%u NEED_PAGE event(s), %u fetch(es), %u failed)\n", pager->count,
               pager->pages, pager->need_page_events, pager->fetches, pager->failures);
        printf("requests %" PRIu64 ", memory hits %" PRIu64 ", deferred %" PRIu64 ", downloads %" PRIu64
               " (coalesced %" PRIu64 ", cancelled %" PRIu64 ", failed %" PRIu64 "), %.2f MB, decoded %" PRIu64 "\n",
               s.requests, s.memory_hits, s.deferred, s.downloads_started, s.downloads_coalesced,
               s.downloads_cancelled, s.downloads_failed, s.bytes_downloaded / 1e6, s.images_decoded);
        printf("moves %u (%" PRIu64 " download(s) started while moving)\n", c->moves, c->downloads_while_moving);
        printf("placeholders: %u feed item(s) with a blurhash, %u request(s) answered with one\n",
               pager->hashes_given, c->placeholders_shown);
    }
    feed_expect(c, pager->hashes_given == 0 || c->placeholders_shown > 0,
                "the feed gave %u blurhash(es), none was shown", pager->hashes_given);
    feed_expect(c, pager->pages >= 2, "only %u page(s) arrived", pager->pages);
    feed_expect(c, pager->failures == 0, "%u page fetch(es) failed: %s", pager->failures, pager->error);
    feed_expect(c, pager->need_page_events == pager->fetches, "%u NEED_PAGE events for %u page fetches",
                pager->need_page_events, pager->fetches);
    feed_expect(c, c->moves > 0, "the list never moved");
    feed_expect(c, s.deferred > 0, "no request was DEFERRED while the list moved");
    if (server != NULL) {
        if (!quiet)
            printf("server: feed pages served %u; %s\n", feed_server_hits(server, "/feed"),
                   feed_server_has_photos(server) ? "Kodak photos" : "generated images");
        feed_expect(c, feed_server_hits(server, "/feed") == pager->pages, "%u feed requests for %u pages",
                    feed_server_hits(server, "/feed"), pager->pages);
    }
}

/* Whether the server's transfer of `path` was for a row the policy allowed then. */
static int download_allowed(const struct feed_checks *c, const struct feed_pager *pager, const char *path,
                            double at_ms, double grace_ms)
{
    for (size_t row = 0; row < pager->count; row++)
        if (pager->items[row].image_path != NULL && strcmp(pager->items[row].image_path, path) == 0 &&
            scroll_windows_allow(&c->windows, at_ms, grace_ms, row))
            return 1;
    return 0;
}

/* The rows showing `path`, for a message: "12" or "12, 84, ...". */
static void rows_of(const struct feed_pager *pager, const char *path, char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t row = 0; row < pager->count && used + 24 < size; row++)
        if (pager->items[row].image_path != NULL && strcmp(pager->items[row].image_path, path) == 0)
            used += (size_t)snprintf(out + used, size - used, "%s%zu", used ? ", " : "", row);
}

/* Whether the client gave up on a transfer before `by_ms`: it closed the
 * connection before the answer was sent, or after, before asking for more on it
 * (a client reuses a connection whose answer it read; the one of a transfer it
 * cancels is closed, even when the answer already sat in the socket's buffers). */
static int hung_up_before(const struct feed_request *r, double by_ms)
{
    return r->outcome == FEED_HUNG_UP || (r->closed_at_ms > 0 && r->closed_at_ms <= by_ms);
}

/* An image the feed names: its photos or generated pictures, or an animation. */
static int is_image_path(const char *path, const char *prefix)
{
    return strncmp(path, prefix, strlen(prefix)) == 0 || strncmp(path, "/anim/", 6) == 0;
}

void feed_checks_downloads(struct feed_checks *c, struct feed_server *server, const struct feed_pager *pager,
                           double grace_ms, const lazyimg_stats *stats, double ended_at_ms, int quiet)
{
    const char *prefix = feed_server_has_photos(server) ? "/photo/" : "/gen/";
    size_t count = 0, paths = 0, redownloads = 0;
    unsigned fast = 0, slow = 0, outside = 0, completed_twice = 0, hung_up = 0;
    uint64_t downloads_cancelled = stats->downloads_cancelled, decodes_skipped = stats->decodes_skipped;
    struct feed_request *log = feed_server_requests(server, &count);
    feed_expect(c, !c->windows.out_of_memory, "out of memory for the scroll windows");
    for (size_t i = 0; i < count; i++) {
        if (!is_image_path(log[i].path, prefix))
            continue;
        const struct scroll_window *w = scroll_windows_at(&c->windows, log[i].at_ms);
        if (w == NULL || w->pace == PACE_AT_REST)
            continue;
        fast += w->pace == PACE_FAST;
        slow += w->pace == PACE_SLOW;
        if (download_allowed(c, pager, log[i].path, log[i].at_ms, grace_ms))
            continue;
        if (++outside <= MAX_REPORTED) {
            char rows[128];
            rows_of(pager, log[i].path, rows, sizeof rows);
            if (w->pace == PACE_FAST && w->landing.hi == 0)
                feed_expect(c, 0, "%s (row %s) downloaded during a fast move without a scroll target or a decay to "
                            "estimate one from", log[i].path, rows);
            else if (w->pace == PACE_FAST)
                feed_expect(c, 0, "%s (row %s) downloaded during a fast move, outside the landing rows %zu..%zu "
                            "(the target's or the estimate's, margin included)", log[i].path, rows, w->landing.lo,
                            w->landing.hi - 1);
            else
                feed_expect(c, 0, "%s (row %s) downloaded during a slow move, outside the visible rows %zu..%zu, "
                            "the prefetch window %zu..%zu and the target", log[i].path, rows, w->visible.lo,
                            w->visible.hi - 1, w->ahead.lo, w->ahead.hi - 1);
        }
    }
    feed_expect(c, outside <= MAX_REPORTED, "%u download(s) in all outside what the scroll policy allows", outside);
    /* Per URL: every transfer but the last must have been given up by the client
     * before the next began. */
    for (size_t i = 0; i < count; i++) {
        if (!is_image_path(log[i].path, prefix))
            continue;
        size_t next = i + 1;
        while (next < count && log[next].path != log[i].path) /* the server's own string: one per path */
            next++;
        int first_of_path = 1;
        for (size_t j = 0; j < i && first_of_path; j++)
            first_of_path = log[j].path != log[i].path;
        paths += first_of_path;
        hung_up += log[i].outcome == FEED_HUNG_UP && log[i].closed_at_ms < ended_at_ms;
        if (next == count)
            continue;
        redownloads++;
        if (!hung_up_before(&log[i], log[next].at_ms) && ++completed_twice <= MAX_REPORTED && !quiet)
            printf("%s downloaded again at +%.0f ms although the server saw the transfer at +%.0f ms end\n",
                   log[i].path, log[next].at_ms - log[0].at_ms, log[i].at_ms - log[0].at_ms);
    }
    /* A download whose decode the loader skipped (its row had left while the
     * file waited for a decode thread) is downloaded again if the row returns.
     * And a transfer the loader cancels after libcurl read the whole answer,
     * before the loader heard of it, leaves the connection open: the server
     * saw it end, the loader counted it cancelled. At most the cancels less
     * the transfers the server saw hung up on (less those that failed:
     * a timeout hangs up too) are of that kind. */
    uint64_t seen = hung_up > stats->downloads_failed ? hung_up - stats->downloads_failed : 0;
    uint64_t unseen_cancels = downloads_cancelled > seen ? downloads_cancelled - seen : 0;
    feed_expect(c, completed_twice <= decodes_skipped + unseen_cancels, "%u image URL(s) downloaded again without "
                "a cancel, but the loader skipped only %" PRIu64 " decode(s) and cancelled %" PRIu64 " transfer(s) "
                "the server did not see cancelled", completed_twice, decodes_skipped, unseen_cancels);
    feed_expect(c, paths > 0, "the server saw no image request");
    feed_expect(c, redownloads <= downloads_cancelled + decodes_skipped,
                "%zu re-download(s) but only %" PRIu64 " cancelled transfer(s) and %" PRIu64 " skipped decode(s)",
                redownloads, downloads_cancelled, decodes_skipped);
    if (!quiet) {
        printf("downloads while moving: %u during fast moves, %u during slow moves, %u outside what the scroll "
               "policy allows (grace %.0f ms)\n", fast, slow, outside, grace_ms);
        printf("server: %zu image URL(s), %zu re-download(s) after a cancel, %u without (the loader cancelled %" PRIu64
               " transfer(s), up to %" PRIu64 " of them after the whole answer had come, and skipped %" PRIu64
               " decode(s))\n", paths, redownloads - completed_twice, completed_twice, downloads_cancelled,
               unseen_cancels, decodes_skipped);
    }
    free(log);
}

void feed_checks_free(struct feed_checks *c)
{
    scroll_windows_free(&c->windows);
    free(c->tickets);
    c->tickets = NULL;
    c->ticket_count = c->ticket_capacity = 0;
}
