/*
 * scroll_windows.h: which rows lazyimg's scroll policy lets the loader start, as
 * the host tells it, over time; the feed demos check the downloads their
 * server saw against them (feed_checks.h).
 *
 * The host reports every call it makes to the loader (visible range, scroll
 * state, scroll target, rows appended) with the time it made it; each call
 * opens a new window, the rows the policy (docs/scroll-policy.md, the header's
 * lazyimg_set_scroll_state) allows to start until the next call:
 *   at rest or moving slower than one screen a second: the visible rows, the
 *     prefetch window ahead (one screen, grown by half a second of travel, at
 *     most four), and the target rows with their margin when a target is set;
 *   moving faster: only the target rows plus a quarter screen each side, or,
 *     DECELERATING without a target, the rows the loader may estimate it rests
 *     on: a screen from the visible rows plus the distance left by either fit
 *     of the decay (decay_fit.h; the shorter taken a quarter shorter, the
 *     longer a quarter longer, as this clock and the loader's tell the calls'
 *     times apart by up to a millisecond), moved back onto the list as the
 *     loader moves it, with the loader's margin: half a screen (at least two
 *     rows) and an eighth of the distance, each side.
 * A target is void after a new touch, at rest, or when the list turns, as in
 * the loader. It assumes the loader's defaults (prefetch_rows and
 * slow_scroll_rows_per_second), which the demos keep. These windows are an
 * upper bound: since 0.3 the loader starts a subset of them (the target's rows
 * only once the rest is due, its margin only on the side the list comes from,
 * half a screen of prefetch, none after a fast motion until a slow drag).
 */
#ifndef SCROLL_WINDOWS_H
#define SCROLL_WINDOWS_H

#include <stddef.h>

#include "decay_fit.h"
#include "lazyimg.h"

/* How the list moved while a window was open. */
enum scroll_pace { PACE_AT_REST, PACE_SLOW, PACE_FAST };

/* Rows [lo, hi). */
struct row_span {
    size_t lo, hi;
};

/* What the policy allows from at_ms until the next window. */
struct scroll_window {
    double at_ms;
    enum scroll_pace pace;
    struct row_span visible, ahead, landing; /* fast: only landing may start */
};

/* The windows so far and what the host last told the loader. Zero it to start. */
struct scroll_windows {
    struct scroll_window *log;
    size_t count, capacity;
    int out_of_memory;
    /* what the loader was told */
    size_t first, visible, rows;
    int has_visible;
    lazyimg_scroll_state state;
    double velocity;   /* rows per second */
    int direction;     /* +1 toward higher rows, -1 toward lower */
    int has_target;
    size_t target_first, target_count;
    struct decay_fit decay; /* this deceleration's speeds */
};

void scroll_windows_told_visible(struct scroll_windows *w, double at_ms, size_t first, size_t count);
void scroll_windows_told_scroll(struct scroll_windows *w, double at_ms, lazyimg_scroll_state state,
                                double rows_per_second);
void scroll_windows_told_target(struct scroll_windows *w, double at_ms, size_t first, size_t count);
void scroll_windows_told_rows(struct scroll_windows *w, double at_ms, size_t rows);

/* The window open at `at_ms`; NULL before the first. */
const struct scroll_window *scroll_windows_at(const struct scroll_windows *w, double at_ms);

/* Whether a download of `row` that a server saw at `at_ms` is one the policy
 * allows: in the window open then, or in one open during the `grace_ms` before
 * (or the one just before): the loader decides before its request reaches the
 * server, and the host may have told it something new in between. */
int scroll_windows_allow(const struct scroll_windows *w, double at_ms, double grace_ms, size_t row);

/* Frees the log; the struct can be zeroed and used again. */
void scroll_windows_free(struct scroll_windows *w);

#endif
