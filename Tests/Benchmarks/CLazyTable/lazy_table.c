#define _POSIX_C_SOURCE 200809L

#include "lazy_table.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

/* A fixed ring of rows: each row is queued at most once at a time (`asked`), so
 * `rows` slots always suffice. */
struct ring {
    size_t *rows;
    size_t head, count, capacity;
};

static int ring_push(struct ring *r, size_t row) {
    if (r->count == r->capacity) return 0;
    r->rows[(r->head + r->count) % r->capacity] = row;
    r->count++;
    return 1;
}

static size_t ring_pop(struct ring *r) {
    size_t row = r->rows[r->head];
    r->head = (r->head + 1) % r->capacity;
    r->count--;
    return row;
}

struct lazy_table {
    size_t rows;
    lazy_table_start_fn start;
    void *context;
    /* UI thread only. */
    unsigned char *has_image, *asked;
    size_t first, count;
    /* Guarded by `lock`. */
    pthread_mutex_t lock;
    pthread_cond_t wake;
    struct ring to_start, arrived;
    unsigned char *arrived_ok;
    int stopping;
    int joined;
    pthread_t thread;
};

static void *network_thread(void *argument) {
    lazy_table *t = argument;
    pthread_mutex_lock(&t->lock);
    for (;;) {
        while (!t->stopping && t->to_start.count == 0) pthread_cond_wait(&t->wake, &t->lock);
        if (t->stopping) break;
        size_t row = ring_pop(&t->to_start);
        pthread_mutex_unlock(&t->lock);
        t->start(t->context, row);
        pthread_mutex_lock(&t->lock);
    }
    pthread_mutex_unlock(&t->lock);
    return NULL;
}

lazy_table *lazy_table_create(size_t rows, lazy_table_start_fn start, void *context) {
    if (rows == 0 || start == NULL) return NULL;
    lazy_table *t = calloc(1, sizeof *t);
    if (t == NULL) return NULL;
    t->rows = rows;
    t->start = start;
    t->context = context;
    t->has_image = calloc(rows, 1);
    t->asked = calloc(rows, 1);
    t->arrived_ok = calloc(rows, 1);
    t->to_start.rows = calloc(rows, sizeof(size_t));
    t->arrived.rows = calloc(rows, sizeof(size_t));
    t->to_start.capacity = t->arrived.capacity = rows;
    if (!t->has_image || !t->asked || !t->arrived_ok || !t->to_start.rows || !t->arrived.rows
        || pthread_mutex_init(&t->lock, NULL) != 0) {
        goto fail;
    }
    if (pthread_cond_init(&t->wake, NULL) != 0) {
        pthread_mutex_destroy(&t->lock);
        goto fail;
    }
    if (pthread_create(&t->thread, NULL, network_thread, t) != 0) {
        pthread_cond_destroy(&t->wake);
        pthread_mutex_destroy(&t->lock);
        goto fail;
    }
    return t;
fail:
    free(t->has_image);
    free(t->asked);
    free(t->arrived_ok);
    free(t->to_start.rows);
    free(t->arrived.rows);
    free(t);
    return NULL;
}

void lazy_table_stop(lazy_table *t) {
    if (t == NULL || t->joined) return;
    pthread_mutex_lock(&t->lock);
    t->stopping = 1;
    pthread_cond_signal(&t->wake);
    pthread_mutex_unlock(&t->lock);
    pthread_join(t->thread, NULL);
    t->joined = 1;
}

void lazy_table_destroy(lazy_table *t) {
    if (t == NULL) return;
    lazy_table_stop(t);
    pthread_cond_destroy(&t->wake);
    pthread_mutex_destroy(&t->lock);
    free(t->has_image);
    free(t->asked);
    free(t->arrived_ok);
    free(t->to_start.rows);
    free(t->arrived.rows);
    free(t);
}

void lazy_table_frame(lazy_table *t, int moving, size_t first, size_t count) {
    if (first >= t->rows) count = 0;
    else if (count > t->rows - first) count = t->rows - first;
    t->first = first;
    t->count = count;
    pthread_mutex_lock(&t->lock);
    while (t->arrived.count > 0) {
        size_t row = ring_pop(&t->arrived);
        t->asked[row] = 0;
        t->has_image[row] |= t->arrived_ok[row];
    }
    int queued = 0;
    if (!moving) {
        for (size_t row = first; row < first + count; row++) {
            if (t->has_image[row] || t->asked[row]) continue;
            t->asked[row] = 1;
            queued |= ring_push(&t->to_start, row);
        }
    }
    /* One wake a frame, and only with something to start. */
    if (queued) pthread_cond_signal(&t->wake);
    pthread_mutex_unlock(&t->lock);
}

int lazy_table_showing(const lazy_table *t, size_t row) {
    return row >= t->first && row < t->first + t->count && t->has_image[row];
}

void lazy_table_arrived(lazy_table *t, size_t row, int ok) {
    if (row >= t->rows) return;
    pthread_mutex_lock(&t->lock);
    t->arrived_ok[row] = ok != 0;
    ring_push(&t->arrived, row);
    pthread_mutex_unlock(&t->lock);
}

static int64_t monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t lazy_table_timed_frame(lazy_table *t, int moving, size_t first, size_t count) {
    int64_t start = monotonic_ns();
    lazy_table_frame(t, moving, first, count);
    return monotonic_ns() - start;
}
