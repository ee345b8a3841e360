/*
 * scroll_windows.c: the rows the scroll policy lets the loader start, window by
 * window. It follows ViewState.window() (Sources/LazyImgCore/Tasks/ViewState.swift)
 * loosely on purpose, as a second reading of the policy docs/scroll-policy.md states, and
 * bounds it from above (see scroll_windows.h): a download outside these rows
 * while the list moves means the loader broke it.
 */
#include "scroll_windows.h"

#include <math.h>
#include <stdlib.h>

#define PREFETCH_LOOKAHEAD_S 0.5 /* the prefetch window grows by this much travel... */
#define PREFETCH_GROWTH_CAP 4    /* ...up to this many screens */
#define ESTIMATE_SLACK 0.25      /* the fits' distances, shortened and lengthened by this */

static struct row_span span(size_t lo, size_t hi)
{
    struct row_span s = {lo, hi > lo ? hi : lo};
    return s;
}

static int in_span(struct row_span s, size_t row)
{
    return row >= s.lo && row < s.hi;
}

/* A turn voids the target, as a fling caught and thrown back lands elsewhere. */
static void turn(struct scroll_windows *w, int direction)
{
    int current = w->direction < 0 ? -1 : 1;
    if (direction == current)
        return;
    w->direction = direction;
    w->has_target = 0;
    decay_fit_reset(&w->decay);
}

/* Where the loader may estimate the list rests, without a target: see
 * scroll_windows.h. Empty while the speeds show no decay. */
static struct row_span estimated_landing(const struct scroll_windows *w, size_t screen)
{
    double least, most;
    if (w->state != LAZYIMG_SCROLL_DECELERATING || !decay_fit_rows_left(&w->decay, &least, &most))
        return span(0, 0);
    size_t near = (size_t)(least * (1 - ESTIMATE_SLACK)), far = (size_t)(most * (1 + ESTIMATE_SLACK));
    size_t margin = (screen / 2 > 2 ? screen / 2 : 2) + far / 8;
    size_t last = w->rows > screen ? w->rows - screen : 0; /* the loader's last resting place */
    size_t lo, hi;
    if (w->direction < 0) {
        lo = w->first > far ? w->first - far : 0;
        hi = w->first > near ? w->first - near : 0;
    } else {
        lo = w->first + near;
        hi = w->first + far;
    }
    lo = lo < last ? lo : last;
    hi = hi < last ? hi : last;
    return span(lo > margin ? lo - margin : 0, hi + screen + margin);
}

/* The window for what the loader was told last, opened at `at_ms`. Rows past the
 * end of the list are not cut off: rows appended later start inside the same
 * spans, and a row that does not exist is never downloaded. */
static void open_window(struct scroll_windows *w, double at_ms)
{
    size_t screen = w->has_visible && w->visible > 0 ? w->visible : 1;
    double speed = fabs(w->velocity);
    double grown = screen + speed * PREFETCH_LOOKAHEAD_S;
    size_t length = grown < (double)(screen * PREFETCH_GROWTH_CAP) ? (size_t)grown : screen * PREFETCH_GROWTH_CAP;
    struct scroll_window next = {at_ms, PACE_AT_REST, {0, 0}, {0, 0}, {0, 0}};
    if (w->has_visible) {
        next.visible = span(w->first, w->first + w->visible);
        next.ahead = w->direction < 0 ? span(w->first > length ? w->first - length : 0, w->first)
                                      : span(w->first + w->visible, w->first + w->visible + length);
    }
    if (w->has_target) {
        /* The loader moves a target past the end back onto the list. */
        size_t last = w->rows > w->target_count ? w->rows - w->target_count : 0;
        size_t first = w->target_first < last ? w->target_first : last;
        size_t margin = screen / 4 > 1 ? screen / 4 : 1;
        next.landing = span(first > margin ? first - margin : 0, w->target_first + w->target_count + margin);
    } else if (w->has_visible) {
        next.landing = estimated_landing(w, screen);
    }
    if (w->state != LAZYIMG_SCROLL_IDLE)
        next.pace = speed < (double)screen ? PACE_SLOW : PACE_FAST;
    if (w->count == w->capacity) {
        size_t capacity = w->capacity ? 2 * w->capacity : 256;
        struct scroll_window *grown_log = realloc(w->log, capacity * sizeof *grown_log);
        if (grown_log == NULL) {
            w->out_of_memory = 1;
            return;
        }
        w->log = grown_log;
        w->capacity = capacity;
    }
    w->log[w->count++] = next;
}

void scroll_windows_told_visible(struct scroll_windows *w, double at_ms, size_t first, size_t count)
{
    if (w->has_visible && first != w->first)
        turn(w, first > w->first ? 1 : -1);
    w->first = first;
    w->visible = count;
    w->has_visible = 1;
    open_window(w, at_ms);
}

void scroll_windows_told_scroll(struct scroll_windows *w, double at_ms, lazyimg_scroll_state state,
                                double rows_per_second)
{
    if (rows_per_second > 0)
        turn(w, 1);
    else if (rows_per_second < 0)
        turn(w, -1);
    /* A new touch, or rest, voids the target. */
    if ((state == LAZYIMG_SCROLL_DRAGGING && w->state != LAZYIMG_SCROLL_DRAGGING) || state == LAZYIMG_SCROLL_IDLE)
        w->has_target = 0;
    /* Each DECELERATING call is a sample of the decay; anything else ends it. */
    if (state == LAZYIMG_SCROLL_DECELERATING)
        decay_fit_add(&w->decay, at_ms, fabs(rows_per_second));
    else
        decay_fit_reset(&w->decay);
    w->state = state;
    w->velocity = rows_per_second;
    open_window(w, at_ms);
}

void scroll_windows_told_target(struct scroll_windows *w, double at_ms, size_t first, size_t count)
{
    w->has_target = count > 0;
    w->target_first = first;
    w->target_count = count;
    open_window(w, at_ms);
}

void scroll_windows_told_rows(struct scroll_windows *w, double at_ms, size_t rows)
{
    w->rows = rows;
    open_window(w, at_ms);
}

/* The index of the window open at `at_ms`, or w->count before the first. */
static size_t index_at(const struct scroll_windows *w, double at_ms)
{
    size_t lo = 0, hi = w->count;
    while (lo < hi) { /* the first window opened after at_ms */
        size_t mid = lo + (hi - lo) / 2;
        if (w->log[mid].at_ms <= at_ms)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 ? lo - 1 : w->count;
}

const struct scroll_window *scroll_windows_at(const struct scroll_windows *w, double at_ms)
{
    size_t i = index_at(w, at_ms);
    return i < w->count ? &w->log[i] : NULL;
}

static int window_allows(const struct scroll_window *window, size_t row)
{
    if (window->pace == PACE_FAST)
        return in_span(window->landing, row);
    return in_span(window->visible, row) || in_span(window->ahead, row) || in_span(window->landing, row);
}

int scroll_windows_allow(const struct scroll_windows *w, double at_ms, double grace_ms, size_t row)
{
    size_t i = index_at(w, at_ms);
    if (i == w->count)
        return 0;
    for (size_t j = i + 1; j-- > 0;) {
        /* Window j was open until window j + 1 opened. */
        if (j + 1 < i && w->log[j + 1].at_ms < at_ms - grace_ms)
            break;
        if (window_allows(&w->log[j], row))
            return 1;
    }
    return 0;
}

void scroll_windows_free(struct scroll_windows *w)
{
    free(w->log);
    w->log = NULL;
    w->count = w->capacity = 0;
}
