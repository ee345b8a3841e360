/*
 * bench_frame_gap.c: what the per-frame calls cost on the host thread when each
 * comes after a frame's gap, as in a UI at 60 Hz, next to the same call made
 * again at once, and next to baselines measured in the same run: an uncontended
 * pthread mutex lock/unlock, an empty library call, and a function of this
 * program's own of about the same size as that call.
 *
 * Why: bench-scroll measures a frame's library calls at 60 Hz. In the 16.7 ms
 * between two frames the loader's decode threads, other programs and, on a
 * virtual machine, the host's other guests run, so the frame's first touches of
 * code and data miss the caches. This prints how much of a frame's cost is that
 * toll, paid by any code, and how much is lazyimg's work.
 *
 * Each round sleeps to the next 60 Hz tick before each kind of call, so every
 * "after a gap" figure is one call after one gap; the kinds take turns, so a
 * slower stretch of the machine falls on all of them alike. Before each gap the
 * program makes a whole frame at rest, as a UI at rest did the frame before
 * (or a frame at rest with a hit, for the kind that follows one): the loader's
 * state then is that of a list at rest, not whatever the previous kind left.
 * A benchmark, not a test: it prints numbers and never fails on them.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_list.h"

/* Every row visible: nothing to prefetch, so no download or decode runs during the rounds. */
#define ROWS 10
#define VISIBLE ROWS
#define ROUNDS 300
#define FRAME_NS 16666667LL

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_until(int64_t deadline) {
    struct timespec ts = {.tv_sec = deadline / 1000000000LL, .tv_nsec = deadline % 1000000000LL};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
    }
}

static lazyimg_loader *loader;
static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static volatile uint64_t sink;
static size_t next_row;

/* The host's own code, as small as an empty library call: a cold call into the
 * program itself, for comparison with a cold call into the library. */
__attribute__((noinline)) static uint64_t host_function(uint64_t x) {
    return x * 2654435761u + (x >> 7);
}

static void call_mutex(void) {
    pthread_mutex_lock(&mutex);
    sink++;
    pthread_mutex_unlock(&mutex);
}

static void call_host_function(void) { sink += host_function(sink); }

static void call_empty(void) { sink += lazyimg_image_width(NULL); }

static void call_state(void) { lazyimg_set_scroll_state(loader, LAZYIMG_SCROLL_IDLE, 0); }

static void call_range(void) { lazyimg_set_visible_range(loader, 0, VISIBLE); }

static void call_dispatch(void) { lazyimg_dispatch(loader, 0); }

static void call_hit(void) {
    lazyimg_image *image = NULL;
    uint64_t ticket = 0;
    lazyimg_request(loader, next_row++ % VISIBLE, &image, &ticket);
    lazyimg_image_release(image);
}

/* A frame at rest, as bench-scroll's host makes it: state, range, dispatch. */
static void call_idle_frame(void) {
    call_state();
    call_range();
    call_dispatch();
}

/* The same with one row coming into view from memory. */
static void call_idle_frame_hit(void) {
    call_state();
    call_range();
    call_hit();
    call_dispatch();
}

struct kind {
    const char *name;
    void (*call)(void);
    /* The frame before the gap. */
    void (*before)(void);
    int64_t after_gap[ROUNDS];
    int64_t at_once[ROUNDS];
};

static struct kind kinds[] = {
    {"baseline: pthread mutex lock+unlock", call_mutex, call_idle_frame, {0}, {0}},
    {"baseline: a function of the host's own", call_host_function, call_idle_frame, {0}, {0}},
    {"baseline: lazyimg_image_width (empty call)", call_empty, call_idle_frame, {0}, {0}},
    {"lazyimg_set_scroll_state, unchanged", call_state, call_idle_frame, {0}, {0}},
    {"lazyimg_set_visible_range, unchanged", call_range, call_idle_frame, {0}, {0}},
    {"lazyimg_request, memory hit (+ release)", call_hit, call_idle_frame, {0}, {0}},
    {"lazyimg_dispatch, nothing queued", call_dispatch, call_idle_frame, {0}, {0}},
    {"frame at rest: state, range, dispatch", call_idle_frame, call_idle_frame, {0}, {0}},
    {"frame at rest after one with a hit", call_idle_frame, call_idle_frame_hit, {0}, {0}},
    {"frame at rest with a hit", call_idle_frame_hit, call_idle_frame, {0}, {0}},
};
#define KINDS (sizeof kinds / sizeof kinds[0])

static int compare(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile of `n` sorted values. */
static double percentile_us(const int64_t *sorted, int n, double fraction) {
    int rank = (int)(fraction * n + 0.999999);
    if (rank < 1) rank = 1;
    return (double)sorted[rank - 1] / 1e3;
}

int main(void) {
    image_server *server = NULL;
    char urls[ROWS][64];
    const char *rows[ROWS];
    loader = bench_open_list(&server, ROWS, urls, rows);
    if (!loader) return 1;

    /* The visible rows in memory, and the list at rest on them. */
    lazyimg_set_scroll_state(loader, LAZYIMG_SCROLL_IDLE, 0);
    lazyimg_set_visible_range(loader, 0, VISIBLE);
    bench_request_rows(loader, VISIBLE);
    if (bench_wait_cached(loader, VISIBLE) != 0) return 1;

    int64_t tick = now_ns();
    for (int round = 0; round < ROUNDS; round++) {
        for (size_t k = 0; k < KINDS; k++) {
            kinds[k].before();
            tick += FRAME_NS;
            sleep_until(tick);
            int64_t t0 = now_ns();
            kinds[k].call();
            int64_t t1 = now_ns();
            kinds[k].call();
            int64_t t2 = now_ns();
            kinds[k].after_gap[round] = t1 - t0;
            kinds[k].at_once[round] = t2 - t1;
        }
    }

    for (size_t k = 0; k < KINDS; k++) {
        qsort(kinds[k].after_gap, ROUNDS, sizeof(int64_t), compare);
        qsort(kinds[k].at_once, ROUNDS, sizeof(int64_t), compare);
    }
    double mutex_gap_p50 = percentile_us(kinds[0].after_gap, ROUNDS, 0.5);
    double mutex_gap_p99 = percentile_us(kinds[0].after_gap, ROUNDS, 0.99);
    printf("frame-gap benchmark: %d rounds; each call after a 60 Hz frame's gap (sleeping), then again at once; "
           "%d rows visible, in memory, list at rest\n",
           ROUNDS, VISIBLE);
    printf("%-44s %10s %10s %10s %10s %12s %12s\n", "call", "gap p50", "gap p99", "again p50", "again p99",
           "p50/mutex", "p99/mutex");
    printf("%-44s %10s %10s %10s %10s %12s %12s\n", "", "us", "us", "us", "us", "after gap", "after gap");
    for (size_t k = 0; k < KINDS; k++) {
        double gap50 = percentile_us(kinds[k].after_gap, ROUNDS, 0.5);
        double gap99 = percentile_us(kinds[k].after_gap, ROUNDS, 0.99);
        printf("%-44s %10.2f %10.2f %10.2f %10.2f %12.1f %12.1f\n", kinds[k].name, gap50, gap99,
               percentile_us(kinds[k].at_once, ROUNDS, 0.5), percentile_us(kinds[k].at_once, ROUNDS, 0.99),
               gap50 / mutex_gap_p50, gap99 / mutex_gap_p99);
    }

    lazyimg_loader_destroy(loader);
    image_server_stop(server);
    return 0;
}
