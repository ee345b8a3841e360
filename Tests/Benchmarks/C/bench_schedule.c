/*
 * bench_schedule.c: what the scroll-aware scheduler costs the host thread, and
 * whether a fling's resting rows are ready when it rests.
 *
 * Part 1 replays flings at 60 Hz against the loopback image server, calling
 * the API as a UI does each frame: scroll state and velocity, the visible
 * range, a request for each newly visible row, one dispatch. It prints the
 * library time per frame (p50, p99, max) by phase, next to an uncontended
 * pthread mutex lock+unlock measured in the same run, and at each rest how
 * many visible rows were already in memory and how long the rest took.
 * Part 2 queues 200,000 requests and times the calls that must not scan them.
 * Part 3 times the view-change calls alone, with nothing in flight.
 * A benchmark, not a test: it prints numbers and never fails on them.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_list.h"

#define ROWS 2000
#define VISIBLE 10
#define PENDING 200000
#define MAX_FRAMES 4096

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* CPU time of the calling thread: the frame's own work, without the time it
 * spent preempted or blocked on a lock another thread held. */
static double thread_cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Sleeps until `deadline_ns` on the monotonic clock: frames are paced at 60 Hz
 * because the loader times velocity samples with that clock. */
static void sleep_until(double deadline_ns) {
    struct timespec ts;
    ts.tv_sec = (time_t)(deadline_ns / 1e9);
    ts.tv_nsec = (long)(deadline_ns - (double)ts.tv_sec * 1e9);
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Frame times of one phase: the whole frame in wall time, the part spent in
 * lazyimg_set_scroll_state + lazyimg_set_visible_range (the scheduler's view
 * change; the rest is requests and dispatch), and the whole frame in the host
 * thread's CPU time. */
typedef struct {
    const char *name;
    double ns[MAX_FRAMES];
    double view_ns[MAX_FRAMES];
    double cpu_ns[MAX_FRAMES];
    int count;
} phase;

static phase idle_phase = {"at rest", {0}, {0}, {0}, 0};
static phase fast_phase = {"decelerating, fast", {0}, {0}, {0}, 0};
static phase slow_phase = {"decelerating, slow (< 1 screen/s)", {0}, {0}, {0}, 0};

static lazyimg_loader *loader;
static unsigned char shown[ROWS];
static double next_frame_ns;

/* One frame as a UI makes it; its library time goes to `into`. */
static void frame(phase *into, lazyimg_scroll_state state, double velocity, size_t first) {
    sleep_until(next_frame_ns);
    next_frame_ns += 1e9 / 60;
    double cpu0 = thread_cpu_ns();
    double t0 = now_ns();
    lazyimg_set_scroll_state(loader, state, velocity);
    lazyimg_set_visible_range(loader, first, VISIBLE);
    double view = now_ns() - t0;
    for (size_t row = first; row < first + VISIBLE && row < ROWS; row++) {
        if (shown[row]) continue;
        shown[row] = 1;
        lazyimg_image *image = NULL;
        uint64_t ticket = 0;
        lazyimg_request(loader, row, &image, &ticket);
        lazyimg_image_release(image);
    }
    lazyimg_dispatch(loader, 0);
    if (into->count < MAX_FRAMES) {
        into->view_ns[into->count] = view;
        into->ns[into->count] = now_ns() - t0;
        into->cpu_ns[into->count++] = thread_cpu_ns() - cpu0;
    }
}

/* Rows of first .. first+VISIBLE-1 in memory now. */
static int in_memory(size_t first) {
    int count = 0;
    for (size_t row = first; row < first + VISIBLE; row++) {
        lazyimg_image *image = NULL;
        if (lazyimg_lookup(loader, row, &image) == LAZYIMG_OK) count++;
        lazyimg_image_release(image);
    }
    return count;
}

/* A fling from `from` at `speed` rows/s decaying as e^(-2t) (UIKit's normal
 * rate), in direction `sign`, then rest. Returns where it rests. */
static size_t fling(size_t from, double speed, int sign) {
    double position = (double)from, t = 0;
    memset(shown, 0, sizeof shown);
    for (;;) {
        double v = speed * exp(-2 * t);
        if (v < 0.5) break;
        position += sign * v / 60;
        t += 1.0 / 60;
        frame(v >= VISIBLE ? &fast_phase : &slow_phase, LAZYIMG_SCROLL_DECELERATING, sign * v, (size_t)position);
    }
    size_t rest = (size_t)position;
    frame(&idle_phase, LAZYIMG_SCROLL_IDLE, 0, rest);
    int ready = in_memory(rest);
    double t0 = now_ns();
    while (in_memory(rest) < VISIBLE && now_ns() - t0 < 5e9) {
        lazyimg_wait(loader, 10);
        lazyimg_dispatch(loader, 0);
    }
    printf("  fling %4zu -> %4zu at %3.0f rows/s: %2d of %d visible rows in memory at rest, all after %5.1f ms\n",
           from, rest, speed, ready, VISIBLE, (now_ns() - t0) / 1e6);
    for (int i = 0; i < 30; i++) frame(&idle_phase, LAZYIMG_SCROLL_IDLE, 0, rest); /* reading */
    return rest;
}

static void print_times(const char *name, const double *ns, int count, double mutex_ns) {
    double sorted[MAX_FRAMES];
    memcpy(sorted, ns, sizeof(double) * (size_t)count);
    qsort(sorted, (size_t)count, sizeof(double), compare_doubles);
    double p50 = sorted[count / 2], p99 = sorted[(count * 99) / 100], max = sorted[count - 1];
    printf("  %-44s %6d %9.0f %9.0f %9.0f %10.1f\n", name, count, p50, p99, max, p99 / mutex_ns);
}

static void print_phase(const phase *p, double mutex_ns) {
    if (p->count == 0) return;
    char name[64];
    print_times(p->name, p->ns, p->count, mutex_ns);
    snprintf(name, sizeof name, "  of which state + range");
    print_times(name, p->view_ns, p->count, mutex_ns);
    snprintf(name, sizeof name, "  host thread CPU time");
    print_times(name, p->cpu_ns, p->count, mutex_ns);
}

int main(void) {
    image_server *server = NULL;
    static char urls[ROWS][64];
    static const char *rows[ROWS];
    loader = bench_open_list(&server, ROWS, urls, rows);
    if (!loader) return 1;

    pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
    volatile long sink = 0;
    double mutex_ns = 1e30;
    for (int run = 0; run < 5; run++) {
        double t0 = now_ns();
        for (long i = 0; i < 2000000; i++) {
            pthread_mutex_lock(&mutex);
            sink++;
            pthread_mutex_unlock(&mutex);
        }
        double per = (now_ns() - t0) / 2000000;
        if (per < mutex_ns) mutex_ns = per;
    }

    printf("schedule benchmark, part 1: %d rows, %d visible, flings replayed at 60 Hz, loopback server\n", ROWS, VISIBLE);
    next_frame_ns = now_ns();
    for (int i = 0; i < 30; i++) frame(&idle_phase, LAZYIMG_SCROLL_IDLE, 0, 0);
    size_t at = fling(0, 600, 1);
    at = fling(at, 1200, 1);
    at = fling(at, 400, -1);
    at = fling(at, 900, 1);
    printf("\n  %-44s %6s %9s %9s %9s %10s\n", "library time per frame", "frames", "p50 ns", "p99 ns", "max ns",
           "p99/mutex");
    print_phase(&idle_phase, mutex_ns);
    print_phase(&fast_phase, mutex_ns);
    print_phase(&slow_phase, mutex_ns);
    printf("  %-44s %6s %9.1f\n", "baseline: pthread mutex lock+unlock", "", mutex_ns);
    lazyimg_loader_destroy(loader);

    /* Part 2: 200k requests wait (DEFERRED while dragging, before any visible
     * range); then the calls that start, cancel and rank them. */
    char (*pending_urls)[48] = malloc(sizeof *pending_urls * PENDING);
    const char **pending_rows = malloc(sizeof *pending_rows * PENDING);
    uint64_t *tickets = malloc(sizeof *tickets * PENDING);
    if (!pending_urls || !pending_rows || !tickets) return 1;
    for (int i = 0; i < PENDING; i++) {
        image_server_jpeg_url(server, i, pending_urls[i], sizeof pending_urls[i]);
        pending_rows[i] = pending_urls[i];
    }
    loader = bench_thumbnail_loader(pending_rows, PENDING);
    if (!loader) return 1;
    lazyimg_set_scroll_state(loader, LAZYIMG_SCROLL_DRAGGING, 1000);
    double t0 = now_ns();
    for (size_t row = 0; row < PENDING; row++) {
        lazyimg_image *image = NULL;
        lazyimg_request(loader, row, &image, &tickets[row]);
    }
    double request_ns = (now_ns() - t0) / PENDING;
    t0 = now_ns();
    lazyimg_set_scroll_state(loader, LAZYIMG_SCROLL_IDLE, 0);
    double idle_ns = now_ns() - t0;
    /* Each cancel frees a download slot, so the scheduler picks the next of
     * ~200k waiting jobs: the call that used to scan them all. */
    double cancel_ns[100];
    for (int i = 0; i < 100; i++) {
        t0 = now_ns();
        lazyimg_cancel(loader, tickets[i]);
        cancel_ns[i] = now_ns() - t0;
    }
    qsort(cancel_ns, 100, sizeof(double), compare_doubles);
    t0 = now_ns();
    lazyimg_set_visible_range(loader, 1000, VISIBLE);
    double first_range_ns = now_ns() - t0;
    t0 = now_ns();
    lazyimg_set_visible_range(loader, 1001, VISIBLE);
    double next_range_ns = now_ns() - t0;

    printf("\nschedule benchmark, part 2: %d requests waiting\n", PENDING);
    printf("  %-58s %12s %12s\n", "call", "ns", "vs mutex");
    printf("  %-58s %12.0f %12.1f\n", "lazyimg_request, miss while dragging (per call)", request_ns, request_ns / mutex_ns);
    printf("  %-58s %12.0f %12.1f\n", "lazyimg_set_scroll_state IDLE (starts the first 6)", idle_ns, idle_ns / mutex_ns);
    printf("  %-58s %12.0f %12.1f\n", "lazyimg_cancel of a running download, starting the next: p50",
           cancel_ns[50], cancel_ns[50] / mutex_ns);
    printf("  %-58s %12.0f %12.1f\n", "  (100 calls) p99", cancel_ns[99], cancel_ns[99] / mutex_ns);
    printf("  %-58s %12.0f %12.1f\n", "lazyimg_set_visible_range, first (cancels 199,990 once)", first_range_ns,
           first_range_ns / mutex_ns);
    printf("  %-58s %12.0f %12.1f\n", "lazyimg_set_visible_range, next frame", next_range_ns, next_range_ns / mutex_ns);

    lazyimg_loader_destroy(loader);

    /* Part 3: the view-change calls alone, with nothing in flight (the list flies,
     * so nothing starts): the scheduler's own cost, free of lock contention with
     * the network and decode threads. */
    loader = bench_thumbnail_loader(pending_rows, ROWS);
    if (!loader) return 1;
    lazyimg_set_scroll_state(loader, LAZYIMG_SCROLL_DRAGGING, 1000);
    lazyimg_set_visible_range(loader, 100, VISIBLE);
    double same_ns = 1e30, step_ns = 1e30, jump_ns = 1e30, turn_ns = 1e30, sample_ns = 1e30;
    for (int run = 0; run < 5; run++) {
        double per;
        t0 = now_ns();
        for (int i = 0; i < 100000; i++) lazyimg_set_visible_range(loader, 100, VISIBLE);
        per = (now_ns() - t0) / 100000;
        if (per < same_ns) same_ns = per;
        t0 = now_ns();
        for (int i = 0; i < 1000; i++) lazyimg_set_visible_range(loader, (size_t)(200 + i), VISIBLE);
        per = (now_ns() - t0) / 1000;
        if (per < step_ns) step_ns = per;
        t0 = now_ns();
        for (int i = 0; i < 80; i++) lazyimg_set_visible_range(loader, (size_t)(200 + 20 * i), VISIBLE);
        per = (now_ns() - t0) / 80;
        if (per < jump_ns) jump_ns = per;
        t0 = now_ns();
        for (int i = 0; i < 1000; i++) {
            lazyimg_set_scroll_state(loader, LAZYIMG_SCROLL_DRAGGING, i % 2 ? 1000 : -1000);
            lazyimg_set_visible_range(loader, (size_t)(500 + i % 2), VISIBLE);
        }
        per = (now_ns() - t0) / 1000;
        if (per < turn_ns) turn_ns = per;
        t0 = now_ns();
        for (int i = 0; i < 1000; i++) lazyimg_set_scroll_state(loader, LAZYIMG_SCROLL_DECELERATING, 1000.0 - i);
        per = (now_ns() - t0) / 1000;
        if (per < sample_ns) sample_ns = per;
        lazyimg_set_scroll_state(loader, LAZYIMG_SCROLL_DRAGGING, 1000);
    }
    printf("\nschedule benchmark, part 3: view changes alone, best of 5 (fast drag, prefetch window 4 screens)\n");
    printf("  %-58s %12s %12s\n", "call", "ns", "vs mutex");
    printf("  %-58s %12.0f %12.1f\n", "lazyimg_set_visible_range, unchanged", same_ns, same_ns / mutex_ns);
    printf("  %-58s %12.0f %12.1f\n", "lazyimg_set_visible_range, 1 row on", step_ns, step_ns / mutex_ns);
    printf("  %-58s %12.0f %12.1f\n", "lazyimg_set_visible_range, 20 rows on", jump_ns, jump_ns / mutex_ns);
    printf("  %-58s %12.0f %12.1f\n", "state + range reversing every frame (window flips)", turn_ns, turn_ns / mutex_ns);
    printf("  %-58s %12.0f %12.1f\n", "lazyimg_set_scroll_state DECELERATING (one decay sample)", sample_ns,
           sample_ns / mutex_ns);
    lazyimg_loader_destroy(loader);
    free(pending_urls);
    free(pending_rows);
    free(tickets);
    image_server_stop(server);
    return (int)(sink & 0);
}
