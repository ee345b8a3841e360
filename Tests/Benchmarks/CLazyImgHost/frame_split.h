/* Where a moving frame's time goes (make bench-frame-split): the host's frame
 * reads the time-stamp counter between its calls and, at the end, prints each
 * part's percentiles over the frames the list moved in, and the frames at rest. Compiled in only with
 * LAZYIMG_HOST_SPLIT: the extra reads would be part of the timed frame. */
#ifndef FRAME_SPLIT_H
#define FRAME_SPLIT_H

#if !defined(__x86_64__)
#error "the frame split reads the x86-64 time-stamp counter"
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>

enum { SPLIT_START, SPLIT_SCROLL, SPLIT_VISIBLE, SPLIT_CELLS, SPLIT_REQUESTS, SPLIT_DISPATCH, SPLIT_MARKS };

typedef struct {
    uint64_t marks[SPLIT_MARKS];
    uint32_t misses, events;
    int moving;
} split_frame;

typedef struct {
    split_frame *frames; /* every frame, moving or not */
    size_t count, capacity;
    split_frame current;
    /* The counter and the monotonic clock at the first mark, to convert ticks. */
    uint64_t first_tick;
    struct timespec first_time;
} frame_split;

#define SPLIT_MARK(h, part) ((h)->split.current.marks[part] = __rdtsc())

static inline void split_end(frame_split *s, int moving, size_t misses, size_t events) {
    if (s->first_tick == 0) {
        s->first_tick = s->current.marks[SPLIT_START];
        clock_gettime(CLOCK_MONOTONIC, &s->first_time);
    }
    if (s->count == s->capacity) {
        size_t capacity = s->capacity ? s->capacity * 2 : 1024;
        split_frame *grown = realloc(s->frames, capacity * sizeof *grown);
        if (!grown) return;
        s->frames = grown, s->capacity = capacity;
    }
    s->current.misses = (uint32_t)misses, s->current.events = (uint32_t)events, s->current.moving = moving;
    s->frames[s->count++] = s->current;
}
#define SPLIT_END(h, moving, misses, events) split_end(&(h)->split, moving, misses, events)

static int split_compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One row: the part's duration (ticks from mark `from` to mark `to`) in the
 * frames `select` keeps. */
static void split_row(const frame_split *s, const char *name, int from, int to, int (*select)(const split_frame *),
                      double ticks_per_us, double *scratch) {
    size_t n = 0;
    for (size_t i = 0; i < s->count; i++) {
        if (select(&s->frames[i])) scratch[n++] = (double)(s->frames[i].marks[to] - s->frames[i].marks[from]) / ticks_per_us;
    }
    if (n == 0) return;
    qsort(scratch, n, sizeof *scratch, split_compare);
    printf("    | %-44s | %5zu | %5.2f | %5.2f | %5.2f |\n", name, n, scratch[n / 2], scratch[n * 9 / 10], scratch[n * 99 / 100]);
}

static int split_all(const split_frame *f) { return f->moving; }
static int split_with_misses(const split_frame *f) { return f->moving && f->misses > 0; }
static int split_with_events(const split_frame *f) { return f->moving && f->events > 0; }
static int split_without_events(const split_frame *f) { return f->moving && f->events == 0; }
static int split_neither(const split_frame *f) { return f->moving && f->misses == 0 && f->events == 0; }
static int split_miss_only(const split_frame *f) { return f->moving && f->misses > 0 && f->events == 0; }
static int split_events_only(const split_frame *f) { return f->moving && f->misses == 0 && f->events > 0; }
static int split_both(const split_frame *f) { return f->moving && f->misses > 0 && f->events > 0; }
/* The frames at rest, and every frame: where the p50 over all frames falls. */
static int split_resting(const split_frame *f) { return !f->moving; }
static int split_resting_events(const split_frame *f) { return !f->moving && f->events > 0; }
static int split_resting_quiet(const split_frame *f) { return !f->moving && f->events == 0 && f->misses == 0; }
static int split_every(const split_frame *f) { (void)f; return 1; }

static void split_report(frame_split *s, int used_target) {
    if (s->count == 0) return;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double us = (double)(now.tv_sec - s->first_time.tv_sec) * 1e6 + (double)(now.tv_nsec - s->first_time.tv_nsec) / 1e3;
    double ticks_per_us = (double)(__rdtsc() - s->first_tick) / us;
    double *scratch = malloc(s->count * sizeof *scratch);
    if (!scratch) return;
    uint64_t misses = 0, events = 0;
    size_t moving = 0;
    for (size_t i = 0; i < s->count; i++) {
        if (!s->frames[i].moving) continue;
        moving++, misses += s->frames[i].misses, events += s->frames[i].events;
    }
    printf("    frame split, lazyimg host %s: %zu moving frames of %zu, %llu tickets opened, %llu events (us)\n",
           used_target ? "with the target" : "velocity only", moving, s->count, (unsigned long long)misses,
           (unsigned long long)events);
    printf("    | part | frames | p50 | p90 | p99 |\n    |---|---|---|---|---|\n");
    split_row(s, "lazyimg_set_scroll_state (+ target)", SPLIT_START, SPLIT_SCROLL, split_all, ticks_per_us, scratch);
    split_row(s, "lazyimg_set_visible_range", SPLIT_SCROLL, SPLIT_VISIBLE, split_all, ticks_per_us, scratch);
    split_row(s, "cells that left (host code, image releases)", SPLIT_VISIBLE, SPLIT_CELLS, split_all, ticks_per_us, scratch);
    split_row(s, "the requests, frames with a miss", SPLIT_CELLS, SPLIT_REQUESTS, split_with_misses, ticks_per_us, scratch);
    split_row(s, "lazyimg_dispatch delivering events", SPLIT_REQUESTS, SPLIT_DISPATCH, split_with_events, ticks_per_us, scratch);
    split_row(s, "lazyimg_dispatch with no event", SPLIT_REQUESTS, SPLIT_DISPATCH, split_without_events, ticks_per_us, scratch);
    split_row(s, "the whole frame", SPLIT_START, SPLIT_DISPATCH, split_all, ticks_per_us, scratch);
    /* What the median frame is made of: the whole frame by what it ran. */
    split_row(s, "whole frame: no miss, no event", SPLIT_START, SPLIT_DISPATCH, split_neither, ticks_per_us, scratch);
    split_row(s, "whole frame: a miss, no event", SPLIT_START, SPLIT_DISPATCH, split_miss_only, ticks_per_us, scratch);
    split_row(s, "whole frame: events, no miss", SPLIT_START, SPLIT_DISPATCH, split_events_only, ticks_per_us, scratch);
    split_row(s, "whole frame: a miss and events", SPLIT_START, SPLIT_DISPATCH, split_both, ticks_per_us, scratch);
    split_row(s, "frames at rest", SPLIT_START, SPLIT_DISPATCH, split_resting, ticks_per_us, scratch);
    split_row(s, "frames at rest: events", SPLIT_START, SPLIT_DISPATCH, split_resting_events, ticks_per_us, scratch);
    split_row(s, "frames at rest: no miss, no event", SPLIT_START, SPLIT_DISPATCH, split_resting_quiet, ticks_per_us,
              scratch);
    split_row(s, "every frame", SPLIT_START, SPLIT_DISPATCH, split_every, ticks_per_us, scratch);
    fflush(stdout);
    free(scratch);
    free(s->frames);
    s->frames = NULL, s->count = s->capacity = 0;
}
#define SPLIT_REPORT(h) split_report(&(h)->split, (h)->tally.used_scroll_target)

#endif
