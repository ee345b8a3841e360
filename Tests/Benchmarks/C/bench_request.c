/*
 * bench_request.c: what the calls a UI makes every frame cost on the host
 * thread. Prints nanoseconds per call for a memory hit through lazyimg_request
 * and lazyimg_lookup, next to baselines measured in the same run: an empty
 * library call (lazyimg_image_width) and an uncontended pthread mutex
 * lock/unlock, the floor any thread-safe cache lookup pays. Also the cost of
 * requests that miss: while dragging (the ticket is DEFERRED; no download) and
 * while idle (a download is scheduled; measured while the workers are busy
 * with the downloads and decodes it causes, so it includes that contention).
 * And what a list's arrival costs the host's thread (lazyimg_set_items, and
 * lazyimg_append_items a page of 100 at a time), next to copying its URLs
 * with strdup, which any loader that keeps the list pays, and the longest a
 * lookup from another thread waited meanwhile (the lock the list is put in).
 * A benchmark, not a test: it prints numbers and never fails on them.
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_list.h"

#define ROWS 256
#define CALLS 2000000L

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* One run of `calls` iterations of the body: `best` becomes its ns per call
 * if that is lower. */
#define TIMED(best, calls, body)                                       \
    do {                                                               \
        double t0_ = now_ns();                                         \
        for (long i_ = 0; i_ < (calls); i_++) { body; }                \
        double per_ = (now_ns() - t0_) / (double)(calls);              \
        if (per_ < (best)) (best) = per_;                              \
    } while (0)

/* Another thread's lookups while a list arrives: the longest one, in ns. */
typedef struct {
    lazyimg_loader *loader;
    volatile int running;
    volatile double longest_ns;
} lookup_watch;

static void *watch_lookups(void *argument) {
    lookup_watch *w = argument;
    while (w->running) {
        lazyimg_image *image = NULL;
        double start = now_ns();
        lazyimg_lookup(w->loader, 0, &image);
        double took = now_ns() - start;
        lazyimg_image_release(image);
        if (took > w->longest_ns) w->longest_ns = took;
    }
    return NULL;
}

/* Runs `body` while another thread looks row 0 up in a loop; keeps in `*worst`
 * (ms) the longest lookup, if longer than the one there. */
#define WATCHED(loader_, worst, body)                                              \
    do {                                                                           \
        lookup_watch watch_ = {(loader_), 1, 0};                                   \
        pthread_t watcher_;                                                        \
        if (pthread_create(&watcher_, NULL, watch_lookups, &watch_) != 0) return 1; \
        while (watch_.longest_ns == 0) sched_yield();                              \
        body;                                                                      \
        watch_.running = 0;                                                        \
        pthread_join(watcher_, NULL);                                              \
        if (watch_.longest_ns / 1e6 > *(worst)) *(worst) = watch_.longest_ns / 1e6; \
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

    /* The hits and their baselines take turns, a run of each per round, so
     * that whatever else the machine does in a round (the loader's threads
     * finishing the fill, a neighbour on a shared core) slows them alike. */
    double hit_ns = 1e30, lookup_ns = 1e30, empty_ns = 1e30, mutex_ns = 1e30;
    volatile uint32_t sink = 0;
    lazyimg_image *held = NULL;
    lazyimg_lookup(loader, 0, &held);
    pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
    for (int round = 0; round < 5; round++) {
        TIMED(hit_ns, CALLS, {
            lazyimg_image *image;
            uint64_t ticket;
            lazyimg_request(loader, (size_t)(i_ % ROWS), &image, &ticket);
            lazyimg_image_release(image);
        });
        TIMED(lookup_ns, CALLS, {
            lazyimg_image *image;
            lazyimg_lookup(loader, (size_t)(i_ % ROWS), &image);
            lazyimg_image_release(image);
        });
        TIMED(empty_ns, CALLS, { sink += lazyimg_image_width(held); });
        TIMED(mutex_ns, CALLS, {
            pthread_mutex_lock(&mutex);
            sink++;
            pthread_mutex_unlock(&mutex);
        });
    }
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

    /* A list's arrival: best of 5, the list emptied between runs. */
    enum { LIST_SIZES = 2, PAGE = 100 };
    static const size_t list_rows[LIST_SIZES] = {10000, 100000};
    double set_ms[LIST_SIZES], append_ms[LIST_SIZES], copy_ms[LIST_SIZES];
    /* Another thread's longest lookup over the 5 runs: while the list arrives,
     * and while the host only copies the URLs (what a preempted lookup costs). */
    double waited_set_ms[LIST_SIZES] = {0}, waited_copy_ms[LIST_SIZES] = {0};
    for (int size = 0; size < LIST_SIZES; size++) {
        size_t n = list_rows[size];
        char (*list_urls)[64] = malloc(sizeof *list_urls * n);
        const char **list = malloc(sizeof *list * n);
        char **copies = malloc(sizeof *copies * n);
        if (!list_urls || !list || !copies) return 1;
        for (size_t i = 0; i < n; i++) {
            snprintf(list_urls[i], sizeof list_urls[i], "http://127.0.0.1:1/feed/%zu.jpg", i);
            list[i] = list_urls[i];
        }
        set_ms[size] = append_ms[size] = copy_ms[size] = 1e30;
        for (int run = 0; run < 5; run++) {
            /* The list replaces one of the same length, whose old rows go too. */
            lazyimg_set_items(loader, list, n);
            double start = 0, took = 0;
            WATCHED(loader, &waited_set_ms[size], {
                start = now_ns();
                lazyimg_set_items(loader, list, n);
                took = (now_ns() - start) / 1e6;
            });
            if (took < set_ms[size]) set_ms[size] = took;
            lazyimg_set_items(loader, NULL, 0);
            start = now_ns();
            for (size_t first = 0; first < n; first += PAGE) lazyimg_append_items(loader, list + first, PAGE);
            took = (now_ns() - start) / 1e6;
            if (took < append_ms[size]) append_ms[size] = took;
            lazyimg_set_items(loader, NULL, 0);
            WATCHED(loader, &waited_copy_ms[size], {
                start = now_ns();
                for (size_t i = 0; i < n; i++) copies[i] = strdup(list[i]);
                took = (now_ns() - start) / 1e6;
            });
            if (took < copy_ms[size]) copy_ms[size] = took;
            for (size_t i = 0; i < n; i++) free(copies[i]);
        }
        lazyimg_dispatch(loader, 0);
        free(list_urls);
        free(list);
        free(copies);
    }

    printf("request benchmark: %d cached 64x64 images, best of 5 x %ld calls (the hits and baselines in turn), 1 thread\n",
           ROWS, CALLS);
    printf("%-44s %10s %12s\n", "call", "ns/call", "vs mutex");
    printf("%-44s %10.1f %12.2f\n", "lazyimg_request, memory hit (+ release)", hit_ns, hit_ns / mutex_ns);
    printf("%-44s %10.1f %12.2f\n", "lazyimg_lookup, memory hit (+ release)", lookup_ns, lookup_ns / mutex_ns);
    printf("%-44s %10.1f %12.2f\n", "baseline: lazyimg_image_width (empty call)", empty_ns, empty_ns / mutex_ns);
    printf("%-44s %10.1f %12.2f\n", "baseline: pthread mutex lock+unlock", mutex_ns, 1.0);
    printf("%-44s %10.1f %12.2f\n", "lazyimg_request, miss while dragging", deferred_ns, deferred_ns / mutex_ns);
    printf("%-44s %10.1f %12.2f\n", "lazyimg_request, miss while idle (busy)", miss_ns, miss_ns / mutex_ns);

    printf("\nlist arrival: best of 5 on the host's thread, ms; another thread's lookups: worst of 5\n");
    printf("%-44s %10s %12s\n", "call", "ms", "vs strdup");
    for (int size = 0; size < LIST_SIZES; size++) {
        char name[64];
        snprintf(name, sizeof name, "lazyimg_set_items, %zu rows", list_rows[size]);
        printf("%-44s %10.2f %12.2f\n", name, set_ms[size], set_ms[size] / copy_ms[size]);
        snprintf(name, sizeof name, "lazyimg_append_items, %zu rows by %d", list_rows[size], PAGE);
        printf("%-44s %10.2f %12.2f\n", name, append_ms[size], append_ms[size] / copy_ms[size]);
        snprintf(name, sizeof name, "baseline: strdup of %zu URLs", list_rows[size]);
        printf("%-44s %10.2f %12.2f\n", name, copy_ms[size], 1.0);
        printf("%-44s %10.2f %12.2f\n", "another thread's longest lookup meanwhile", waited_set_ms[size],
               waited_set_ms[size] / waited_copy_ms[size]);
        printf("%-44s %10.2f %12.2f\n", "baseline: the same lookups beside strdup", waited_copy_ms[size], 1.0);
    }

    lazyimg_loader_destroy(loader);
    image_server_stop(server);
    return 0;
}
