/* Where a moving frame's time goes (make bench-frame-split): the host's frame
 * reads the time-stamp counter between its calls and, at the end, prints each
 * part's percentiles over the frames the list moved in, and the frames at rest.
 * Then it lists the slowest 1% of all frames with what each ran and what the OS
 * did to the thread around it (getrusage after the frame's last mark), to tell
 * a frame's own work from a preemption or a page fault. Compiled in only with
 * LAZYIMG_HOST_SPLIT: the extra reads would be part of the timed frame.
 * RUSAGE_THREAD needs _GNU_SOURCE before the first include. */
#ifndef FRAME_SPLIT_H
#define FRAME_SPLIT_H

#if !defined(__x86_64__)
#error "the frame split reads the x86-64 time-stamp counter"
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <x86intrin.h>

#include "../../../include/lazyimg.h"

enum { SPLIT_START, SPLIT_SCROLL, SPLIT_VISIBLE, SPLIT_CELLS, SPLIT_REQUESTS, SPLIT_DISPATCH, SPLIT_MARKS };

typedef struct {
    uint64_t marks[SPLIT_MARKS];
    uint32_t misses, events;
    int state;    /* the lazyimg_scroll_state the frame set */
    int moving;   /* state is not LAZYIMG_SCROLL_IDLE */
    int targeted; /* the frame called lazyimg_set_scroll_target */
    /* The thread's totals so far, read just after the frame's last mark: the
     * difference from the frame before covers this frame and the gap before it.
     * Voluntary: the thread blocked (a lock it waited for, a system call that
     * slept); involuntary: it was preempted. */
    uint64_t voluntary_switches, involuntary_switches, faults;
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

static inline void split_end(frame_split *s, int state, int targeted, size_t misses, size_t events) {
    struct rusage usage;
    if (getrusage(RUSAGE_THREAD, &usage) == 0) {
        s->current.voluntary_switches = (uint64_t)usage.ru_nvcsw;
        s->current.involuntary_switches = (uint64_t)usage.ru_nivcsw;
        s->current.faults = (uint64_t)usage.ru_minflt + (uint64_t)usage.ru_majflt;
    } else {
        s->current.voluntary_switches = s->current.involuntary_switches = s->current.faults = 0;
    }
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
    s->current.misses = (uint32_t)misses, s->current.events = (uint32_t)events;
    s->current.state = state, s->current.moving = state != LAZYIMG_SCROLL_IDLE, s->current.targeted = targeted;
    s->frames[s->count++] = s->current;
}
#define SPLIT_END(h, state, targeted, misses, events) split_end(&(h)->split, state, targeted, misses, events)

static int split_compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double split_us(const split_frame *f, int from, int to, double ticks_per_us) {
    return (double)(f->marks[to] - f->marks[from]) / ticks_per_us;
}

/* One row: the part's duration (ticks from mark `from` to mark `to`) in the
 * frames `select` keeps. */
static void split_row(const frame_split *s, const char *name, int from, int to, int (*select)(const split_frame *),
                      double ticks_per_us, double *scratch) {
    size_t n = 0;
    for (size_t i = 0; i < s->count; i++) {
        if (select(&s->frames[i])) scratch[n++] = split_us(&s->frames[i], from, to, ticks_per_us);
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

static const char *split_state_name(int state) {
    static const char *const names[] = {"IDLE", "DRAGGING", "DECELERATING"};
    return state >= 0 && (size_t)state < sizeof names / sizeof *names ? names[state] : "?";
}

static const frame_split *split_sorting; /* for split_slower: qsort passes no context */

static int split_slower(const void *a, const void *b) {
    const split_frame *f = &split_sorting->frames[*(const size_t *)a], *g = &split_sorting->frames[*(const size_t *)b];
    uint64_t x = f->marks[SPLIT_DISPATCH] - f->marks[SPLIT_START], y = g->marks[SPLIT_DISPATCH] - g->marks[SPLIT_START];
    return x > y ? -1 : x < y;
}

/* The slowest 1% of all frames (at most 40), slowest first: whether each was
 * its own work or the OS taking the thread. Frame 0 has no reading before it. */
static void split_slowest(const frame_split *s, double ticks_per_us) {
    size_t n = s->count / 100;
    if (n == 0) n = 1;
    if (n > 40) n = 40;
    size_t *order = malloc(s->count * sizeof *order);
    if (!order) return;
    for (size_t i = 0; i < s->count; i++) order[i] = i;
    split_sorting = s;
    qsort(order, s->count, sizeof *order, split_slower);
    printf("\n    slowest %zu of %zu frames (us; switches and faults: getrusage(RUSAGE_THREAD) after the frame's last\n"
           "    mark, minus the same after the frame before, so they cover this frame and the gap before it)\n",
           n, s->count);
    printf("    | frame | whole | scroll | visible | cells | requests | dispatch | state | previous state"
           " | set target | misses | events | vol. switches since prev frame | invol. switches since prev frame"
           " | faults since prev frame |\n"
           "    |---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (size_t k = 0; k < n; k++) {
        size_t i = order[k];
        const split_frame *f = &s->frames[i], *previous = i > 0 ? &s->frames[i - 1] : NULL;
        char blocked[24] = "-", switches[24] = "-", faults[24] = "-";
        if (previous) {
            snprintf(blocked, sizeof blocked, "%llu",
                     (unsigned long long)(f->voluntary_switches - previous->voluntary_switches));
            snprintf(switches, sizeof switches, "%llu",
                     (unsigned long long)(f->involuntary_switches - previous->involuntary_switches));
            snprintf(faults, sizeof faults, "%llu", (unsigned long long)(f->faults - previous->faults));
        }
        printf("    | %zu | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %s | %s | %s | %u | %u | %s | %s | %s |\n", i,
               split_us(f, SPLIT_START, SPLIT_DISPATCH, ticks_per_us), split_us(f, SPLIT_START, SPLIT_SCROLL, ticks_per_us),
               split_us(f, SPLIT_SCROLL, SPLIT_VISIBLE, ticks_per_us), split_us(f, SPLIT_VISIBLE, SPLIT_CELLS, ticks_per_us),
               split_us(f, SPLIT_CELLS, SPLIT_REQUESTS, ticks_per_us),
               split_us(f, SPLIT_REQUESTS, SPLIT_DISPATCH, ticks_per_us), split_state_name(f->state),
               previous ? split_state_name(previous->state) : "-", f->targeted ? "yes" : "no", (unsigned)f->misses,
               (unsigned)f->events, blocked, switches, faults);
    }
    free(order);
}

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
    split_slowest(s, ticks_per_us);
    fflush(stdout);
    free(scratch);
    free(s->frames);
    s->frames = NULL, s->count = s->capacity = 0;
}
#define SPLIT_REPORT(h) split_report(&(h)->split, (h)->tally.used_scroll_target)

#endif
