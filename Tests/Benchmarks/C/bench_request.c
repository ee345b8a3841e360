/*
 * bench_request.c: what the calls a UI makes every frame cost on the host
 * thread. Prints nanoseconds per call for a memory hit through lazyimg_request
 * and lazyimg_lookup, next to baselines measured in the same run: an empty
 * library call (lazyimg_image_width) and an uncontended pthread mutex
 * lock/unlock, the floor any thread-safe cache lookup pays. Also the cost of
 * requests that miss: while dragging (the ticket is DEFERRED; no download) and
 * while idle (a download is scheduled; measured while the workers are busy
 * with the downloads and decodes it causes, so it includes that contention).
 * A benchmark, not a test: it prints numbers and never fails on them.
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_list.h"

#define ROWS 256
#define CALLS 2000000L

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Best of five runs of `calls` iterations of the given body, in ns per call. */
#define MEASURE(result, calls, body)                                   \
    do {                                                               \
        double best_ = 1e30;                                           \
        for (int run_ = 0; run_ < 5; run_++) {                         \
            double t0_ = now_ns();                                     \
            for (long i_ = 0; i_ < (calls); i_++) { body; }            \
            double per_ = (now_ns() - t0_) / (double)(calls);          \
            if (per_ < best_) best_ = per_;                            \
        }                                                              \
        (result) = best_;                                              \
    } while (0)

int main(void) {
    image_server *server = NULL;
    char urls[ROWS][64];
    const char *rows[ROWS];
    lazyimg_loader *loader = bench_open_list(&server, ROWS, urls, rows);
    if (!loader) return 1;

    /* Misses: each schedules one download and hands out a ticket. */
    double t0 = now_ns();
    bench_request_rows(loader, ROWS);
    double miss_ns = (now_ns() - t0) / ROWS;
    /* Every ticket's event fills the cache. */
    if (bench_wait_cached(loader, ROWS) != 0) return 1;

    double hit_ns, lookup_ns, empty_ns, mutex_ns;
    volatile uint32_t sink = 0;
    lazyimg_image *held = NULL;
    lazyimg_lookup(loader, 0, &held);
    MEASURE(hit_ns, CALLS, {
        lazyimg_image *image;
        uint64_t ticket;
        lazyimg_request(loader, (size_t)(i_ % ROWS), &image, &ticket);
        lazyimg_image_release(image);
    });
    MEASURE(lookup_ns, CALLS, {
        lazyimg_image *image;
        lazyimg_lookup(loader, (size_t)(i_ % ROWS), &image);
        lazyimg_image_release(image);
    });
    MEASURE(empty_ns, CALLS, { sink += lazyimg_image_width(held); });
    pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
    MEASURE(mutex_ns, CALLS, {
        pthread_mutex_lock(&mutex);
        sink++;
        pthread_mutex_unlock(&mutex);
    });
    lazyimg_image_release(held);

    /* Misses during a fling: a ticket each, DEFERRED, no download. */
    enum { FLING_ROWS = 20000 };
    char (*fling_urls)[64] = malloc(sizeof *fling_urls * FLING_ROWS);
    const char **fling_rows = malloc(sizeof *fling_rows * FLING_ROWS);
    if (!fling_urls || !fling_rows) return 1;
    for (int i = 0; i < FLING_ROWS; i++) {
        snprintf(fling_urls[i], sizeof fling_urls[i], "http://127.0.0.1:1/fling/%d.jpg", i);
        fling_rows[i] = fling_urls[i];
    }
    double deferred_ns = 1e30;
    for (int run = 0; run < 5; run++) {
        lazyimg_set_items(loader, fling_rows, FLING_ROWS);
        lazyimg_set_scroll_state(loader, LAZYIMG_SCROLL_DRAGGING, 100.0);
        double start = now_ns();
        for (size_t row = 0; row < FLING_ROWS; row++) {
            lazyimg_image *image;
            uint64_t ticket;
            lazyimg_request(loader, row, &image, &ticket);
        }
        double per = (now_ns() - start) / FLING_ROWS;
        if (per < deferred_ns) deferred_ns = per;
        lazyimg_set_items(loader, NULL, 0); /* cancels them all */
        lazyimg_dispatch(loader, 0);
        lazyimg_set_scroll_state(loader, LAZYIMG_SCROLL_IDLE, 0);
    }
    free(fling_urls);
    free(fling_rows);

    printf("request benchmark: %d cached 64x64 images, best of 5 x %ld calls, 1 thread\n", ROWS, CALLS);
    printf("%-44s %10s %12s\n", "call", "ns/call", "vs mutex");
    printf("%-44s %10.1f %12.2f\n", "lazyimg_request, memory hit (+ release)", hit_ns, hit_ns / mutex_ns);
    printf("%-44s %10.1f %12.2f\n", "lazyimg_lookup, memory hit (+ release)", lookup_ns, lookup_ns / mutex_ns);
    printf("%-44s %10.1f %12.2f\n", "baseline: lazyimg_image_width (empty call)", empty_ns, empty_ns / mutex_ns);
    printf("%-44s %10.1f %12.2f\n", "baseline: pthread mutex lock+unlock", mutex_ns, 1.0);
    printf("%-44s %10.1f %12.2f\n", "lazyimg_request, miss while dragging", deferred_ns, deferred_ns / mutex_ns);
    printf("%-44s %10.1f %12.2f\n", "lazyimg_request, miss while idle (busy)", miss_ns, miss_ns / mutex_ns);

    lazyimg_loader_destroy(loader);
    image_server_stop(server);
    return 0;
}
